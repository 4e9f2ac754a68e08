/*
 * clockshim: fencelab's wall-clock fault for a server process, loaded with
 * LD_PRELOAD (the approach of libfaketime, which Jepsen uses for clocks).
 *
 * It intercepts clock_gettime, gettimeofday and time, and adds to the wall
 * clock (CLOCK_REALTIME and CLOCK_REALTIME_COARSE) an offset in
 * nanoseconds, read as a decimal integer from the file named by the
 * environment variable FENCELAB_CLOCK_OFFSET_FILE. The harness replaces
 * that file atomically (write and rename); the shim re-reads it at most
 * once per millisecond of monotonic time, so a step takes effect within a
 * millisecond and a call costs a vDSO read otherwise. Monotonic clocks are
 * left alone: a wall-clock step is exactly what NTP or an operator does to
 * a machine, and it never moves CLOCK_MONOTONIC.
 *
 * Without the variable, or while the file is missing or unreadable, the
 * last offset read stays (0 at start).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);

static clock_gettime_fn real_clock_gettime;
/*
 * The file's name is copied out of the environment at load: programs that
 * set their process title (redis-server does) overwrite the memory the
 * environment strings live in.
 */
static char offset_file_buf[4096];
static const char *offset_file;
static int64_t offset_ns;     /* accessed atomically */
static int64_t next_check_ns; /* monotonic ns; accessed atomically */

#define CHECK_PERIOD_NS 1000000LL
#define NS_PER_SEC 1000000000LL

__attribute__((constructor)) static void clockshim_init(void) {
	real_clock_gettime = (clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
	const char *name = getenv("FENCELAB_CLOCK_OFFSET_FILE");
	size_t n;

	if (name == NULL)
		return;
	n = strlen(name);
	if (n == 0 || n >= sizeof offset_file_buf)
		return; /* no usable file: the offset stays 0 */
	memcpy(offset_file_buf, name, n + 1);
	offset_file = offset_file_buf;
}

static int call_real(clockid_t clk, struct timespec *ts) {
	clock_gettime_fn fn = real_clock_gettime;
	if (fn == NULL) { /* called before the constructor ran */
		fn = (clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
		real_clock_gettime = fn;
	}
	return fn(clk, ts);
}

/* read_offset parses the file's decimal nanoseconds; 0 on success. */
static int read_offset(int64_t *out) {
	char buf[64];
	int fd, saved = errno;
	ssize_t n;
	char *end;
	long long v;

	fd = open(offset_file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		errno = saved;
		return -1;
	}
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	errno = saved;
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (errno != 0 || end == buf) {
		errno = saved;
		return -1;
	}
	errno = saved;
	*out = (int64_t)v;
	return 0;
}

static int64_t current_offset(void) {
	struct timespec mono;
	int64_t now, next, v;

	if (offset_file == NULL)
		return 0;
	if (call_real(CLOCK_MONOTONIC, &mono) == 0) {
		now = (int64_t)mono.tv_sec * NS_PER_SEC + mono.tv_nsec;
		next = __atomic_load_n(&next_check_ns, __ATOMIC_ACQUIRE);
		if (now >= next) {
			__atomic_store_n(&next_check_ns, now + CHECK_PERIOD_NS, __ATOMIC_RELEASE);
			if (read_offset(&v) == 0)
				__atomic_store_n(&offset_ns, v, __ATOMIC_RELEASE);
		}
	}
	return __atomic_load_n(&offset_ns, __ATOMIC_ACQUIRE);
}

static void shift(struct timespec *ts, int64_t off) {
	int64_t total = (int64_t)ts->tv_sec * NS_PER_SEC + ts->tv_nsec + off;
	int64_t sec = total / NS_PER_SEC, nsec = total % NS_PER_SEC;
	if (nsec < 0) {
		nsec += NS_PER_SEC;
		sec--;
	}
	ts->tv_sec = (time_t)sec;
	ts->tv_nsec = (long)nsec;
}

int clock_gettime(clockid_t clk, struct timespec *ts) {
	int r = call_real(clk, ts);
	if (r == 0 && (clk == CLOCK_REALTIME || clk == CLOCK_REALTIME_COARSE))
		shift(ts, current_offset());
	return r;
}

/* glibc declares tv nonnull, yet callers pass NULL to ask for the zone. */
#pragma GCC diagnostic ignored "-Wnonnull-compare"
int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
	struct timespec ts;
	(void)tz; /* obsolete; Linux fills nothing useful */
	if (tv == NULL)
		return 0;
	if (call_real(CLOCK_REALTIME, &ts) != 0)
		return -1;
	shift(&ts, current_offset());
	tv->tv_sec = ts.tv_sec;
	tv->tv_usec = (suseconds_t)(ts.tv_nsec / 1000);
	return 0;
}

time_t time(time_t *t) {
	struct timespec ts;
	if (call_real(CLOCK_REALTIME, &ts) != 0)
		return (time_t)-1;
	shift(&ts, current_offset());
	if (t != NULL)
		*t = ts.tv_sec;
	return ts.tv_sec;
}

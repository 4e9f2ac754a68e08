package explore

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/fencelab/fencelab/internal/quote"
)

// MemoryAuto is the memory limit that is a share of the memory available
// (--max-memory's default).
const MemoryAuto = "auto"

// ParseMemory reads a memory limit (--max-memory): auto, 0 (no limit),
// or a size with an optional unit (B, KiB, MiB, GiB, TiB, or KB, MB, GB,
// TB in powers of ten; K, M, G, T are binary).
func ParseMemory(s string) (int, error) {
	if s == MemoryAuto {
		return autoMemory("/proc/meminfo"), nil
	}
	t := strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   float64
	}{
		{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
		{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}, {"B", 1},
	}
	mult := 1.0
	for _, u := range units {
		if strings.HasSuffix(strings.ToUpper(t), strings.ToUpper(u.suffix)) {
			t, mult = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 || v*mult >= 1<<62 || t == "" {
		return 0, fmt.Errorf("max-memory must be auto, 0 or a size such as 512MiB or 8GiB, got %s", quote.Q(s))
	}
	return int(v * mult), nil
}

// autoMemory is three quarters of the memory the kernel says is available
// (MemAvailable in path, /proc/meminfo on Linux), or 0 — no limit — where
// that cannot be read.
func autoMemory(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemAvailable:" {
			kb, err := strconv.Atoi(fields[1])
			if err != nil || kb <= 0 {
				return 0
			}
			return kb * 1024 / 4 * 3
		}
	}
	return 0
}

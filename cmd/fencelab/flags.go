package main

import (
	"flag"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	"github.com/fencelab/fencelab/bounds"
	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/shard"
)

// The flags that several commands share, each declared here only
// (TestSharedFlagsDeclaredOnce), so that a flag means one thing and its
// help has one shape everywhere; a command adds its own part (what, more).

// outFlag is --out: kind (folder or file) for what.
func outFlag(fs *flag.FlagSet, def, kind, what string) *string {
	return fs.String("out", def, kind+" for "+what)
}

// designFlag is --design: what the command takes, then what a design is.
func designFlag(fs *flag.FlagSet, def, what string) *string {
	return fs.String("design", def, what+"; a design is a row of the matrix: "+impl.Flags()+" (fencelab designs lists them)")
}

// runsFlag is --runs, simulator runs per unit.
func runsFlag(fs *flag.FlagSet, def int, per string) *int {
	return fs.Int("runs", def, "simulator runs per "+per)
}

// seedFlag is --seed: the seed of the first run, consecutive after it.
func seedFlag(fs *flag.FlagSet, first string) *uint64 {
	return fs.Uint64("seed", 1, "seed of "+first+"; run i uses seed+i")
}

// clientsFlag is --clients, the size of a model or a run.
func clientsFlag(fs *flag.FlagSet, def int, more string) *int {
	return fs.Int("clients", def, "clients contending for the lock"+more)
}

// sectionsFlag is --sections.
func sectionsFlag(fs *flag.FlagSet, def int, more string) *int {
	return fs.Int("sections", def, "critical sections per client"+more)
}

// retriesFlag is --retries.
func retriesFlag(fs *flag.FlagSet, def int, more string) *int {
	return fs.Int("retries", def, "rejections per section a client answers by asking again"+more)
}

// validityFlag is --validity, an impl.ValidityRule.
func validityFlag(fs *flag.FlagSet, def impl.ValidityRule, more string) *string {
	return fs.String("validity", def.String(), "when a client's validity window starts: send (of the acquire; a grant that lands after its window is given back, Redlock's rule) or arrival (of the grant: a late grant outlives its lease)"+more)
}

// The bounds of DESIGN.md's condition, in bounds, sim and sweep.

func ttlFlag(fs *flag.FlagSet, def time.Duration, more string) *time.Duration {
	return fs.Duration("ttl", def, "lease TTL at the service"+more)
}

func marginFlag(fs *flag.FlagSet, def time.Duration, more string) *time.Duration {
	return fs.Duration("margin", def, "safety margin: a client believes in its lease for ttl − margin of its own clock"+more)
}

func lockDelayFlag(fs *flag.FlagSet, def time.Duration, more string) *time.Duration {
	return fs.Duration("lock-delay", def, "time after an expiry before the lock is granted again"+more)
}

func maxJumpFlag(fs *flag.FlagSet, def time.Duration, more string) *time.Duration {
	return fs.Duration("max-jump", def, "largest clock step J, forward or back"+more)
}

func maxPauseFlag(fs *flag.FlagSet, def time.Duration, more string) *time.Duration {
	return fs.Duration("max-pause", def, "longest process pause P"+more)
}

func maxDelayFlag(fs *flag.FlagSet, def time.Duration, more string) *time.Duration {
	return fs.Duration("max-delay", def, "longest one-way message delay D, from the step that sends it"+more)
}

// driftValue is a --max-drift flag: a clock rate drift bound read by
// bounds.ParseDrift (50ppm, 0.005% or 0.00005), held as a fraction.
type driftValue float64

func (d *driftValue) String() string {
	if d == nil {
		return "0"
	}
	return strconv.FormatFloat(float64(*d), 'g', -1, 64)
}

func (d *driftValue) Set(s string) error {
	f, err := bounds.ParseDrift(s)
	if err != nil {
		return err
	}
	*d = driftValue(f)
	return nil
}

// driftFlag is --max-drift with the default def and the words of usage,
// followed by the forms every command accepts.
func driftFlag(fs *flag.FlagSet, def float64, usage string) *driftValue {
	d := driftValue(def)
	fs.Var(&d, "max-drift", usage+"; as a fraction (0.1), a percentage (10%) or parts per million (50ppm)")
	return &d
}

// The TLC runs of demo, tlc and conform.

func specsFlag(fs *flag.FlagSet, more string) *string {
	return fs.String("specs", "specs", "folder with the specs"+more)
}

func pinFlag(fs *flag.FlagSet) *string {
	return fs.String("pin", "tla2tools.version", "the pinned TLA+ tools release")
}

func timeoutFlag(fs *flag.FlagSet) *time.Duration {
	return fs.Duration("timeout", 10*time.Minute, "time limit for one TLC run")
}

func noCacheFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("no-cache", false, "run TLC on every model and check again instead of reading an identical earlier run's result from the cache ($FENCELAB_CACHE, an absolute path to a folder that can be written, else fencelab in the user's cache folder; a cached result is marked \"(cached)\")")
}

// shardFlag is --shard of the commands that split a campaign.
func shardFlag(fs *flag.FlagSet) *string {
	return fs.String("shard", "", shard.Usage)
}

// given reports whether the flag name was set on the command line.
func given(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// nodesFlag defines --nodes, the Redlock rows' independent lock nodes,
// with its default def shown in --help. Read it with lockNodes.
func nodesFlag(fs *flag.FlagSet, def int, usage string) *int {
	return fs.Int("nodes", def, usage)
}

// lockNodes is --nodes as the configuration takes it: 0 (each row's own
// default, which --help shows) when not given, else the value given — of
// which 0 is refused, not read as "the default": zero lock nodes is no
// lock.
func lockNodes(fs *flag.FlagSet, n int) (int, error) {
	if !given(fs, "nodes") {
		return 0, nil
	}
	if n < 1 {
		return 0, badInput("nodes must be at least 1 (a lock node or more), got %d", n)
	}
	return n, nil
}

// workersFlag defines --workers, the goroutines that share the work: one
// per CPU unless given. In the CLI reference its help says so in words,
// not as this machine's count.
func workersFlag(e *env, fs *flag.FlagSet, what string) *int {
	usage := "goroutines " + what + " (results do not depend on it)"
	if e.reference {
		return fs.Int("workers", 0, usage+" (default: one per CPU)")
	}
	return fs.Int("workers", runtime.GOMAXPROCS(0), usage)
}

// defaultOut is a command's --out folder by default.
func defaultOut(command string) string { return filepath.Join("out", command) }

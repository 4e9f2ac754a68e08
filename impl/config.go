package impl

import (
	"fmt"
	"time"

	"github.com/fencelab/fencelab/internal/quote"
)

// ValidityRule is when a client's validity window starts: the moment it
// sent the acquire (Redlock's rule; see the README's Sources) or the moment the
// grant arrived (the flawed rule, kept to show the flaw).
type ValidityRule uint8

// Validity rules. The zero value is the send rule, the default.
const (
	// ValiditySend starts the window when the acquire is sent: the client
	// believes it holds the lock until its own clock has advanced
	// TTL − margin since the send, and a grant that arrives after that is
	// given back. However long the grant travelled, the belief never
	// outlasts TTL − margin of the client's clock from a moment before the
	// service started the lease.
	ValiditySend ValidityRule = iota
	// ValidityArrival starts the window when the grant arrives: a grant
	// delayed by more than the margin makes the client believe past the
	// end of the lease at the service — a fixed margin cannot cover an
	// unbounded delay.
	ValidityArrival
)

// ValidityRules lists the rules, the default first.
func ValidityRules() []ValidityRule { return []ValidityRule{ValiditySend, ValidityArrival} }

// String is the rule's flag value: send or arrival.
func (v ValidityRule) String() string {
	switch v {
	case ValiditySend:
		return "send"
	case ValidityArrival:
		return "arrival"
	}
	return fmt.Sprintf("ValidityRule(%d)", uint8(v))
}

// ParseValidityRule reads a rule's flag value.
func ParseValidityRule(s string) (ValidityRule, error) {
	for _, v := range ValidityRules() {
		if v.String() == s {
			return v, nil
		}
	}
	return 0, fmt.Errorf("unknown validity rule %s (want send or arrival)", quote.Q(s))
}

// Config is the one configuration of a system — one lock, its service, its
// clients and the resource — shared by every runtime. A runtime's own
// configuration embeds it and adds only its own knobs (the simulator its
// network and fault bounds, the explorer its symmetry and state cap), so
// every bound below is stated once, here, and every command reports a bad
// value in the same words. The field names are the flags' names.
type Config struct {
	Design   Design
	Clients  int
	Sections int // critical sections per client
	Retries  int // rejections per section a client answers by asking again; then it gives up
	// TTL is the lease a grant carries; Margin is subtracted from it for
	// the client's belief (its validity is TTL − Margin of its own clock).
	TTL    time.Duration
	Margin time.Duration
	// Validity is when that window starts: at the acquire's send (the
	// default, Redlock's rule) or at the grant's arrival (the flaw).
	Validity ValidityRule
	// Think is the time between reading the counter and writing read+1.
	Think time.Duration
	// LockDelay, when positive, holds an expired lock back that long
	// before it is granted again (0: none).
	LockDelay time.Duration
	// Renewals, in a renewing design (Design.Renews), bounds the renewals
	// a client sends per section; 0 is the runtime's own bound
	// (TimedRenewals in the simulator, UntimedRenewals in the untimed
	// world, which never exceeds it). No flag sets it: package conform
	// runs the simulator with the untimed world's bound, so that a
	// simulated run is a run of the world.
	Renewals int
	// Nodes is the number of independent lock nodes of a Redlock row
	// (Design.Redlock); 0 means the design's default (DefaultNodes). Every
	// other row has the one service: 0 or 1.
	Nodes int
}

// ServiceLockDelay is the lock-delay the service applies: LockDelay, or,
// in a design whose service always has one (Design.LockDelay) and none is
// given, a fifth of the TTL. Untimed, only its presence matters. Timed, a
// longer one makes two holders rarer but not impossible under the
// simulator's faults (pauses up to three TTLs): one TTL, as Consul's
// 15 s for sessions of 10 s, showed two holders in 3 of 1,000 default
// runs — too rare for a sample of a few dozen runs to show the row's
// expected violation — a fifth of the TTL in 22.
func (c Config) ServiceLockDelay() time.Duration {
	if c.LockDelay == 0 && c.Design.LockDelay() {
		return c.TTL / 5
	}
	return c.LockDelay
}

// ForDesign is c for design d: in a run of several rows, Nodes (--nodes)
// is the Redlock rows' number of lock nodes, and every other row keeps its
// one service.
func (c Config) ForDesign(d Design) Config {
	c.Design = d
	if !d.Redlock() {
		c.Nodes = 0
	}
	return c
}

// LockNodes is the number of lock nodes of c: Nodes, or the design's
// default.
func (c Config) LockNodes() int {
	if c.Nodes == 0 {
		return c.Design.DefaultNodes()
	}
	return c.Nodes
}

// Majority is how many lock nodes must grant: more than half of them.
func (c Config) Majority() int { return c.LockNodes()/2 + 1 }

// MaxDuration bounds every duration of a Config, so that the simulator's
// sums of durations (a stall bound adds TTLs, pauses and lock-delays, and
// scales them by clock rates) stay far from int64 overflow.
const MaxDuration = 24 * time.Hour

// maxCount bounds sections and retries: clients keep them in one byte of
// their canonical encoding.
const maxCount = 255

// Validate reports the first thing wrong with c as one line for a user,
// naming the value by its flag.
func (c Config) Validate() error {
	if !c.Design.valid() {
		return fmt.Errorf("unknown design %d", c.Design)
	}
	if c.Validity > ValidityArrival {
		return fmt.Errorf("validity must be send or arrival, got %v", c.Validity)
	}
	if err := between("clients", c.Clients, 1, MaxClients); err != nil {
		return err
	}
	if err := between("sections", c.Sections, 1, maxCount); err != nil {
		return err
	}
	if err := between("retries", c.Retries, 0, maxCount); err != nil {
		return err
	}
	if err := between("renewals", c.Renewals, 0, maxCount); err != nil {
		return err
	}
	switch {
	case c.Design.Redlock():
		if err := between("nodes", c.Nodes, 0, MaxLockNodes); err != nil {
			return err
		}
	case c.Nodes > 1 || c.Nodes < 0:
		return fmt.Errorf("nodes must be 1 for design %s (one lock service; the Redlock rows take up to %d), got %d", c.Design, MaxLockNodes, c.Nodes)
	}
	for _, d := range []struct {
		flag  string
		value time.Duration
		lo    time.Duration
	}{{"ttl", c.TTL, time.Nanosecond}, {"margin", c.Margin, 0}, {"think", c.Think, 0}, {"lock-delay", c.LockDelay, 0}} {
		if err := DurationBetween(d.flag, d.value, d.lo, MaxDuration); err != nil {
			return err
		}
	}
	if c.Margin >= c.TTL {
		return fmt.Errorf("margin (%v) must be less than ttl (%v)", c.Margin, c.TTL)
	}
	return nil
}

// between reports a count outside [lo, hi] in the words every command uses.
func between(flag string, v, lo, hi int) error {
	if v < lo || v > hi {
		return fmt.Errorf("%s must be between %d and %d, got %d", flag, lo, hi, v)
	}
	return nil
}

// DurationBetween reports a duration outside [lo, hi] in the words every
// command uses; runtimes use it for their own durations too.
func DurationBetween(flag string, v, lo, hi time.Duration) error {
	switch {
	case v < lo && lo == 0:
		return fmt.Errorf("%s must not be negative, got %v", flag, v)
	case v < lo && lo == time.Nanosecond:
		return fmt.Errorf("%s must be positive, got %v", flag, v)
	case v < lo:
		return fmt.Errorf("%s must be at least %v, got %v", flag, lo, v)
	case v > hi:
		return fmt.Errorf("%s must be at most %v, got %v", flag, hi, v)
	}
	return nil
}

// ValidUntil is the end of a grant's validity window by rule, on whatever
// clock sent and arrived were read from: validity after the acquire's send
// (ValiditySend) or after the grant's arrival (ValidityArrival). It is the
// moment impl's client's validity timer fires; the live client and the
// live judge read the same rule through it.
func ValidUntil(rule ValidityRule, sent, arrived time.Time, validity time.Duration) time.Time {
	if rule == ValidityArrival {
		return arrived.Add(validity)
	}
	return sent.Add(validity)
}

// MayAct reports whether a client may act (read or write on its grant) at
// now, its grant valid until until: strictly before the window's end. At
// the end itself the belief is over, as impl's client's is once its
// validity timer fires (a timer that fires at the end ends the belief
// before any step at that moment).
func MayAct(now, until time.Time) bool { return now.Before(until) }

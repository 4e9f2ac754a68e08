package distlockspec

import (
	"errors"
	"fmt"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/internal/quote"
	"github.com/fencelab/fencelab/tlc"
)

// ErrNotGoSystem marks a model whose system is not one the Go code runs:
// its counterexample has no Go replay by construction, and the reason says
// why.
var ErrNotGoSystem = errors.New("not a system the Go code runs")

// DesignOfConstants is the design a model of spec (a .tla file's name)
// stands for, read from its cfg's constants (tlc values by name):
// DistLock.tla's Renewals, DistLockFencing.tla's Check, TokenRule,
// ServiceRestart and NonAtomic (SpecConstants), DistLockRedlock.tla's
// Fencing (RedlockFencing) and MaxRestarts, and GiveUp. It fails,
// wrapping ErrNotGoSystem, for another spec and for the constants that
// change the system into one the Go code does not implement (a mutant
// token rule, clients that never give up, another renewal budget).
func DesignOfConstants(spec string, consts map[string]tlc.Value) (impl.Design, error) {
	design := impl.DesignNoFencing
	switch spec {
	case "DistLock.tla":
		if r, ok := consts["Renewals"]; ok && r.Kind == tlc.KindInt && r.Int > 0 {
			design = impl.DesignRenewal
			if r.Int != int64(impl.UntimedRenewals) {
				return 0, fmt.Errorf("constant Renewals = %d: Go's untimed world renews at most %d a section: %w", r.Int, impl.UntimedRenewals, ErrNotGoSystem)
			}
		}
	case "DistLockFencing.tla":
		var k Constants
		for name, dst := range map[string]*string{"Check": &k.Check, "TokenRule": &k.TokenRule, "ServiceRestart": &k.ServiceRestart} {
			v, ok := consts[name]
			if !ok || v.Kind != tlc.KindString {
				return 0, fmt.Errorf("the cfg has no %s string", name)
			}
			*dst = v.Str
		}
		if k.TokenRule == "pairs" || k.TokenRule == "down" {
			return 0, fmt.Errorf("mutant service (TokenRule %s): %w", quote.Q(k.TokenRule), ErrNotGoSystem)
		}
		v, ok := consts["NonAtomic"]
		if !ok || v.Kind != tlc.KindBool {
			return 0, fmt.Errorf("the cfg has no boolean NonAtomic")
		}
		k.NonAtomic = v.Bool
		if design, ok = DesignOf(k); !ok {
			return 0, fmt.Errorf("constants Check %s, TokenRule %s, ServiceRestart %s, NonAtomic %v are no design's (fencelab designs lists them)",
				quote.Q(k.Check), quote.Q(k.TokenRule), quote.Q(k.ServiceRestart), k.NonAtomic)
		}
	case redlockSpec + ".tla":
		f, ok := consts["Fencing"]
		if !ok || f.Kind != tlc.KindString {
			return 0, fmt.Errorf("the cfg has no Fencing string")
		}
		switch f.Str {
		case RedlockFencing(impl.DesignRedlock):
			design = impl.DesignRedlock
		case RedlockFencing(impl.DesignRedlockUnique):
			design = impl.DesignRedlockUnique
		default:
			return 0, fmt.Errorf("constant Fencing %s is no Redlock row's", quote.Q(f.Str))
		}
		if q, ok := consts["Quorum"]; ok && q.Kind == tlc.KindString && q.Str != "majority" {
			return 0, fmt.Errorf("mutant client (Quorum %s): %w", quote.Q(q.Str), ErrNotGoSystem)
		}
		if l, ok := consts["LateMajority"]; ok && l.Kind == tlc.KindBool && l.Bool {
			return 0, fmt.Errorf("mutant client (LateMajority): %w", ErrNotGoSystem)
		}
		if r, ok := consts["MaxRestarts"]; !ok || r.Kind != tlc.KindInt || r.Int != impl.UntimedRestarts {
			return 0, fmt.Errorf("constant MaxRestarts is not %d, the untimed world's restarts: %w", impl.UntimedRestarts, ErrNotGoSystem)
		}
	default:
		return 0, fmt.Errorf("another spec (%s): %w", spec, ErrNotGoSystem)
	}
	if g, ok := consts["GiveUp"]; ok && g.Kind == tlc.KindBool && !g.Bool {
		return 0, fmt.Errorf("clients never give up (GiveUp): %w", ErrNotGoSystem)
	}
	return design, nil
}

package distlockspec

import (
	"errors"
	"maps"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencelab/fencelab/impl"
	"github.com/fencelab/fencelab/tlc"
)

// TestDesignOfConstants: a model's constants select its design, both ways
// round with SpecConstants; a system Go does not run is refused as such.
func TestDesignOfConstants(t *testing.T) {
	str := func(s string) tlc.Value { return tlc.Value{Kind: tlc.KindString, Str: s} }
	boolean := func(b bool) tlc.Value { return tlc.Value{Kind: tlc.KindBool, Bool: b} }
	integer := func(n int64) tlc.Value { return tlc.Value{Kind: tlc.KindInt, Int: n} }
	for _, d := range Designs() {
		if d.Redlock() {
			got, err := DesignOfConstants("DistLockRedlock.tla", map[string]tlc.Value{"Fencing": str(RedlockFencing(d)), "MaxRestarts": integer(impl.UntimedRestarts)})
			require.NoError(t, err, d.String())
			assert.Equal(t, d, got)
			continue
		}
		if !d.Tokens() {
			continue
		}
		k := SpecConstants(d)
		got, err := DesignOfConstants("DistLockFencing.tla", map[string]tlc.Value{
			"Check": str(k.Check), "TokenRule": str(k.TokenRule), "ServiceRestart": str(k.ServiceRestart), "NonAtomic": boolean(k.NonAtomic),
		})
		require.NoError(t, err, d.String())
		assert.Equal(t, d, got)
	}
	// Redlock's test-only mutant clients and a model without the untimed
	// world's restart are no Go system.
	redlock := map[string]tlc.Value{"Fencing": str("none"), "MaxRestarts": integer(impl.UntimedRestarts), "Quorum": str("majority"), "LateMajority": boolean(false)}
	for name, v := range map[string]tlc.Value{"Quorum": str("half"), "LateMajority": boolean(true), "MaxRestarts": integer(0)} {
		k := maps.Clone(redlock)
		k[name] = v
		_, err := DesignOfConstants("DistLockRedlock.tla", k)
		assert.ErrorIs(t, err, ErrNotGoSystem, name)
	}
	_, err := DesignOfConstants("DistLockRedlock.tla", map[string]tlc.Value{"Fencing": str("pairs"), "MaxRestarts": integer(1)})
	assert.ErrorContains(t, err, "no Redlock row's")

	got, err := DesignOfConstants("DistLock.tla", map[string]tlc.Value{"Renewals": integer(0)})
	require.NoError(t, err)
	assert.Equal(t, impl.DesignNoFencing, got)
	got, err = DesignOfConstants("DistLock.tla", map[string]tlc.Value{"Renewals": integer(int64(impl.UntimedRenewals))})
	require.NoError(t, err)
	assert.Equal(t, impl.DesignRenewal, got)

	fencing := map[string]tlc.Value{"Check": str("all"), "TokenRule": str("lease"), "ServiceRestart": str("never"), "NonAtomic": boolean(false)}
	with := func(name string, v tlc.Value) map[string]tlc.Value {
		m := map[string]tlc.Value{}
		for k, x := range fencing {
			m[k] = x
		}
		m[name] = v
		return m
	}
	tests := []struct {
		name   string
		spec   string
		consts map[string]tlc.Value
		notGo  bool
		want   string
	}{
		{"another spec", "DistLockTimed.tla", fencing, true, "another spec"},
		{"a mutant service", "DistLockFencing.tla", with("TokenRule", str("pairs")), true, "mutant service"},
		{"patient clients", "DistLockFencing.tla", with("GiveUp", boolean(false)), true, "never give up"},
		{"another renewal budget", "DistLock.tla", map[string]tlc.Value{"Renewals": integer(int64(impl.UntimedRenewals) + 1)}, true, "renews at most"},
		{"no design's constants", "DistLockFencing.tla", with("Check", str("cas")), false, "no design's"},
		{"a missing constant", "DistLockFencing.tla", map[string]tlc.Value{"Check": str("all"), "TokenRule": str("lease"), "NonAtomic": boolean(false)}, false, "no ServiceRestart string"},
		{"a constant of the wrong kind", "DistLockFencing.tla", with("NonAtomic", integer(1)), false, "no boolean NonAtomic"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DesignOfConstants(tc.spec, tc.consts)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Equal(t, tc.notGo, errors.Is(err, ErrNotGoSystem), err.Error())
		})
	}
}

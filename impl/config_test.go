package impl

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConfigValidate: every shared bound, at and just past its edge.
func TestConfigValidate(t *testing.T) {
	ok := Config{Design: DesignFenceAll, Clients: 2, Sections: 1, Retries: 1, TTL: time.Second, Margin: 100 * time.Millisecond}
	tests := []struct {
		name   string
		change func(*Config)
		want   string // "" for valid
	}{
		{"valid", func(*Config) {}, ""},
		{"unknown design", func(c *Config) { c.Design = numDesigns }, fmt.Sprintf("unknown design %d", numDesigns)},
		{"the arrival rule", func(c *Config) { c.Validity = ValidityArrival }, ""},
		{"unknown validity rule", func(c *Config) { c.Validity = ValidityArrival + 1 }, "validity must be send or arrival, got ValidityRule(2)"},
		{"no clients", func(c *Config) { c.Clients = 0 }, "clients must be between 1 and 246, got 0"},
		{"most clients", func(c *Config) { c.Clients = MaxClients }, ""},
		{"too many clients", func(c *Config) { c.Clients = MaxClients + 1 }, "clients must be between 1 and 246, got 247"},
		{"no sections", func(c *Config) { c.Sections = 0 }, "sections must be between 1 and 255, got 0"},
		{"most sections", func(c *Config) { c.Sections = 255 }, ""},
		{"too many sections", func(c *Config) { c.Sections = 256 }, "sections must be between 1 and 255, got 256"},
		{"no retries", func(c *Config) { c.Retries = 0 }, ""},
		{"negative retries", func(c *Config) { c.Retries = -1 }, "retries must be between 0 and 255, got -1"},
		{"too many retries", func(c *Config) { c.Retries = 256 }, "retries must be between 0 and 255, got 256"},
		{"zero ttl", func(c *Config) { c.TTL = 0 }, "ttl must be positive, got 0s"},
		{"huge ttl", func(c *Config) { c.TTL = MaxDuration + 1 }, "ttl must be at most 24h0m0s"},
		{"negative margin", func(c *Config) { c.Margin = -1 }, "margin must not be negative, got -1ns"},
		{"margin equals ttl", func(c *Config) { c.Margin = c.TTL }, "margin (1s) must be less than ttl (1s)"},
		{"negative think", func(c *Config) { c.Think = -time.Millisecond }, "think must not be negative, got -1ms"},
		{"negative lock-delay", func(c *Config) { c.LockDelay = -time.Second }, "lock-delay must not be negative, got -1s"},
		{"huge lock-delay", func(c *Config) { c.LockDelay = 1 << 62 }, "lock-delay must be at most 24h0m0s"},
		{"longest lock-delay", func(c *Config) { c.LockDelay = MaxDuration }, ""},
		{"one service", func(c *Config) { c.Nodes = 1 }, ""},
		{"nodes of a single-service row", func(c *Config) { c.Nodes = 3 }, "nodes must be 1 for design all (one lock service; the Redlock rows take up to 9), got 3"},
		{"negative nodes of a single-service row", func(c *Config) { c.Nodes = -1 }, "nodes must be 1 for design all"},
		{"Redlock's default nodes", func(c *Config) { c.Design, c.Nodes = DesignRedlock, 0 }, ""},
		{"one Redlock node", func(c *Config) { c.Design, c.Nodes = DesignRedlock, 1 }, ""},
		{"most Redlock nodes", func(c *Config) { c.Design, c.Nodes = DesignRedlockUnique, MaxLockNodes }, ""},
		{"too many Redlock nodes", func(c *Config) { c.Design, c.Nodes = DesignRedlock, MaxLockNodes+1 }, "nodes must be between 0 and 9, got 10"},
		{"negative Redlock nodes", func(c *Config) { c.Design, c.Nodes = DesignRedlock, -1 }, "nodes must be between 0 and 9, got -1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.change(&c)
			err := c.Validate()
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			_, err = NewSystem(c)
			assert.Error(t, err, "NewSystem validates too")
		})
	}
}

func TestParseValidityRule(t *testing.T) {
	for _, v := range ValidityRules() {
		got, err := ParseValidityRule(v.String())
		require.NoError(t, err)
		assert.Equal(t, v, got)
	}
	var zero Config
	assert.Equal(t, ValiditySend, zero.Validity, "the send rule is the default")
	_, err := ParseValidityRule("grant")
	assert.EqualError(t, err, `unknown validity rule "grant" (want send or arrival)`)
}

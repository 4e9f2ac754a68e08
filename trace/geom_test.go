package trace

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWrap(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want []string
	}{
		{"", 10, []string{""}},
		{"short", 10, []string{"short"}},
		{"recv Grant(lease 1) from service", 20, []string{"recv Grant(lease 1)", "from service"}},
		{"a  b   c", 10, []string{"a b c"}},
		{"abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
		{"x abcdefghij", 4, []string{"x", "abcd", "efgh", "ij"}},
		{"→ ×× →", 4, []string{"→ ××", "→"}},
	}
	for _, tc := range tests {
		t.Run(tc.s, func(t *testing.T) {
			assert.Equal(t, tc.want, wrap(tc.s, tc.n))
		})
	}
}

func TestSegmentHits(t *testing.T) {
	b := box{10, 10, 20, 10}
	tests := []struct {
		name string
		s    segment
		want bool
	}{
		{"through", segment{0, 15, 40, 15}, true},
		{"diagonal through", segment{0, 0, 40, 30}, true},
		{"starts inside", segment{15, 15, 100, 100}, true},
		{"touches a corner", segment{0, 20, 10, 10}, true},
		{"above", segment{0, 5, 40, 5}, false},
		{"passes a corner", segment{0, 18, 8, 30}, false},
		{"diagonal beside", segment{0, 12, 8, 0}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.s.hits(b))
		})
	}
}

func TestBoxOverlap(t *testing.T) {
	tests := []struct {
		name string
		a, b box
		want int
	}{
		{"apart", box{0, 0, 10, 10}, box{20, 0, 10, 10}, 0},
		{"touching", box{0, 0, 10, 10}, box{10, 0, 10, 10}, 0},
		{"corner", box{0, 0, 10, 10}, box{5, 5, 10, 10}, 25},
		{"inside", box{0, 0, 10, 10}, box{2, 2, 3, 3}, 9},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.a.overlap(tc.b))
			assert.Equal(t, tc.want, tc.b.overlap(tc.a))
		})
	}
}

func TestLabelPlacer(t *testing.T) {
	line := segment{0, 0, 200, 100}
	tests := []struct {
		name      string
		obstacles []box
		lines     []segment
		want      func(t *testing.T, b box)
	}{
		{"free: near the sender", nil, []segment{line}, func(t *testing.T, b box) {
			assert.Less(t, b.X+b.W/2, 100, "nearer the sender than the receiver")
			assert.True(t, line.hits(b), "on its line")
		}},
		{"text in the way", []box{{40, 20, 80, 30}}, []segment{line}, func(t *testing.T, b box) {
			assert.Zero(t, b.overlap(box{40, 20, 80, 30}))
			assert.True(t, line.hits(b), "on its line")
		}},
		{"another arrow in the way", nil, []segment{line, {70, 0, 70, 100}}, func(t *testing.T, b box) {
			assert.False(t, segment{70, 0, 70, 100}.hits(b))
			assert.True(t, line.hits(b), "on its line")
		}},
		{"same-step arrow: under the line", nil, []segment{{0, 50, 200, 50}}, func(t *testing.T, b box) {
			assert.Greater(t, b.Y, 50)
			assert.Equal(t, 100, b.X+b.W/2, "in the middle")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &labelPlacer{obstacles: tc.obstacles, lines: tc.lines, minX: -1000, maxX: 1000, reach: 1000}
			b := p.place(0, 40, 16)
			assert.Equal(t, 40, b.W)
			tc.want(t, b)
			second := p.place(0, 40, 16)
			assert.Zero(t, b.overlap(second), "a second label on the same line avoids the first")
		})
	}
}

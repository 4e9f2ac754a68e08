package impl

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestTextsWithoutToken: a message, operation or event of a row without
// tokens (Token NoToken) never says "token 0" — the sequence pictures and
// Porcupine's pages print these texts, and a "token 0" there reads as if
// the row had tokens. Every message kind is tried; with a token, the same
// texts name it.
func TestTextsWithoutToken(t *testing.T) {
	for k := MsgAcquire; k <= MsgRenewed; k++ {
		for _, ok := range []bool{false, true} {
			m := Message{Kind: k, From: ClientNode(0), To: ResourceNode, Lease: 1, Value: 9, OK: ok}
			assert.NotContains(t, m.String(), "token 0", "%v", k)
		}
	}
	for _, tc := range []struct {
		token     uint64
		msg, want string
	}{
		{NoToken, Message{Kind: MsgRead}.String(), "Read"},
		{NoToken, Message{Kind: MsgWrite, Value: 9}.String(), "Write(9)"},
		{NoToken, Message{Kind: MsgGrant, Lease: 2}.String(), "Grant(lease 2)"},
		{NoToken, Message{Kind: MsgCheck}.String(), "Check(no token)"},
		{NoToken, Op{Client: ClientNode(2), Kind: OpRead, Value: 8}.String(), "c3 read 8"},
		{NoToken, Event{Kind: EvOpAccepted, Op: Op{Client: ClientNode(0), Kind: OpWrite, Value: 1}}.String(), "accepted c1 write 1"},
		{NoToken, Event{Kind: EvGranted, Lease: 1, Peer: ClientNode(0)}.String(), "granted lease 1 to c1"},
		{NoToken, Event{Kind: EvHolding, Lease: 1}.String(), "holds the lock (lease 1)"},
		{10, Message{Kind: MsgRead, Token: 10}.String(), "Read(token 10)"},
		{10, Message{Kind: MsgWrite, Value: 9, Token: 10}.String(), "Write(9, token 10)"},
		{10, Message{Kind: MsgGrant, Lease: 2, Token: 10}.String(), "Grant(lease 2, token 10)"},
		{10, Message{Kind: MsgCheckReply, Token: 10, OK: true}.String(), "CheckReply(token 10 current)"},
		{10, Op{Client: ClientNode(2), Kind: OpRead, Value: 8, Token: 10}.String(), "c3 read 8 (token 10)"},
		{10, Event{Kind: EvHolding, Lease: 1, Token: 10}.String(), "holds the lock (lease 1, token 10)"},
	} {
		assert.Equal(t, tc.want, tc.msg, "token %d", tc.token)
	}
	value := redlockValue(ClientNode(0), 0, 0)
	assert.Equal(t, fmt.Sprintf("c1 write 2 (token %s)", FormatLease(value)), Op{Client: ClientNode(0), Kind: OpWrite, Value: 2, Token: value}.String())
}

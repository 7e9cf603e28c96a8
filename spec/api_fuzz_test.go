package spec

import (
	"reflect"
	"testing"
)

// TestActionClasses: each kind is its own class, and a forward that
// accepts draft tokens or finishes a request at EOS is one of the two
// forward classes, EOS first.
func TestActionClasses(t *testing.T) {
	sp, _ := draftAdmission.Spec(0)
	names := sp.ActionClasses()
	if len(names) != int(numActionKinds)+1 || names[0] != "arrive" || names[len(names)-2] != "forward+accept" || names[len(names)-1] != "forward+eos" {
		t.Fatalf("classes %q", names)
	}
	accepted := Action{Kind: ActForward, Requests: 1<<1 | 1<<3}
	accepted.Accepted[3] = 2
	unlisted := Action{Kind: ActForward, Requests: 1 << 1}
	unlisted.Accepted[3] = 2 // a choice for a request the forward does not carry
	for _, c := range []struct {
		a    Action
		want string
	}{
		{Action{Kind: ActArrive, ID: 1}, "arrive"},
		{Action{Kind: ActHandle, Count: 1}, "handle"},
		{Action{Kind: ActForward, Requests: 1 << 1}, "forward"},
		{unlisted, "forward"},
		{accepted, "forward+accept"},
		{Action{Kind: ActForward, Requests: 1 << 1, EOS: 1 << 1}, "forward+eos"},
	} {
		if got := names[sp.ActionClass(&c.a)]; got != c.want {
			t.Errorf("class of %v = %s, want %s", c.a, got, c.want)
		}
	}
}

// TestRenumber: a renumbering renames a forward's requests with their
// choices and its rank, drops the choices of dropped requests, keeps a
// collective action, and refuses an action of a dropped request or rank.
func TestRenumber(t *testing.T) {
	m := IdentityRenumbering()
	if m.ID[MaxIDs-1] != MaxIDs-1 || m.Rank[MaxRanks-1] != MaxRanks-1 {
		t.Fatalf("identity %+v", m)
	}
	m.ID[1], m.ID[2], m.ID[3] = Dropped, 1, 2
	m.Rank[0], m.Rank[1] = Dropped, 0
	fwd := Action{Kind: ActForward, Rank: 1, Requests: 1<<1 | 1<<2 | 1<<3, EOS: 1<<1 | 1<<3}
	fwd.Accepted[1], fwd.Accepted[2], fwd.Accepted[3] = 1, 2, 3
	want := Action{Kind: ActForward, Rank: 0, Requests: 1<<1 | 1<<2, EOS: 1 << 2}
	want.Accepted[1], want.Accepted[2] = 2, 3
	for _, c := range []struct {
		a, want Action
		ok      bool
	}{
		{fwd, want, true},
		{Action{Kind: ActArrive, ID: 2}, Action{Kind: ActArrive, ID: 1}, true},
		{Action{Kind: ActArrive, ID: 1}, Action{}, false},
		{Action{Kind: ActReceiveKV, ID: 3, Rank: 1}, Action{Kind: ActReceiveKV, ID: 2, Rank: 0}, true},
		{Action{Kind: ActReceiveKV, ID: 1, Rank: 1}, Action{}, false},
		{Action{Kind: ActFetch, Collective: true}, Action{Kind: ActFetch, Collective: true}, true},
		{Action{Kind: ActSchedule, Rank: 0}, Action{}, false},
		{Action{Kind: ActSchedule, Rank: 1}, Action{Kind: ActSchedule, Rank: 0}, true},
	} {
		got, ok := c.a.Renumber(&m)
		if ok != c.ok || ok && !reflect.DeepEqual(got, c.want) {
			t.Errorf("Renumber(%v) = %v, %v; want %v, %v", c.a, got, ok, c.want, c.ok)
		}
	}
}

package spec

// This file holds the helpers package fuzz needs from the spec: action
// classes that swarm walks weight separately, and the renumbering of a
// trace onto a configuration with fewer requests or ranks (the shrinker).

// ActionClasses names the classes of action that a swarm walk weights
// separately: one per action kind, then two for forward choices the
// environment makes rarely (some draft tokens accepted, an early finish at
// EOS), so that a walk can favour or switch off each of them.
func (sp *Spec) ActionClasses() []string {
	names := make([]string, 0, numActionKinds+1) // a capacity: its mutants are equivalent
	for k := ActArrive; k < numActionKinds; k++ {
		names = append(names, k.String())
	}
	return append(names, "forward+accept", "forward+eos")
}

// ActionClass returns the index in ActionClasses of a's class.
func (sp *Spec) ActionClass(a *Action) int {
	const acceptClass, eosClass = int(numActionKinds) - 1, int(numActionKinds)
	if a.Kind == ActForward {
		if a.EOS != 0 {
			return eosClass
		}
		for id := range MaxIDs {
			if a.Requests&(1<<id) != 0 && a.Accepted[id] > 0 {
				return acceptClass
			}
		}
	}
	return int(a.Kind) - 1
}

// Dropped marks a request ID or rank that a Renumbering removes.
const Dropped = 0xff

// Renumbering maps the request IDs and ranks of a trace onto a smaller
// configuration: one whose request templates or ranks were dropped, so the
// remaining ones are renumbered from the smallest (requests arrive in
// template order, so a request's ID is its template's position).
type Renumbering struct {
	// ID maps each old request ID to its new one, or Dropped.
	ID [MaxIDs]uint8
	// Rank maps each old rank to its new one, or Dropped.
	Rank [MaxRanks]uint8
}

// IdentityRenumbering maps every ID and rank to itself.
func IdentityRenumbering() Renumbering {
	var m Renumbering
	for id := range m.ID {
		m.ID[id] = uint8(id)
	}
	for r := range m.Rank {
		m.Rank[r] = uint8(r)
	}
	return m
}

// Renumber returns a with its request IDs and rank renamed by m, and false
// when the action concerns only what m drops (the arrival or KV receipt of
// a dropped request, any phase of a dropped rank; a collective action stays). A forward keeps the choices of the
// requests that remain. It knows every field of Action that names a request
// or a rank; a new such field must be renamed here too.
func (a Action) Renumber(m *Renumbering) (Action, bool) {
	if a.Kind == ActArrive || a.Kind == ActReceiveKV {
		id := m.ID[a.ID]
		if id == Dropped {
			return a, false
		}
		a.ID = id
	}
	if a.Kind == ActArrive || a.Collective {
		return a, true // every rank's action: no rank to rename
	}
	rank := m.Rank[a.Rank]
	if rank == Dropped {
		return a, false
	}
	a.Rank = rank
	if a.Kind == ActForward {
		out := Action{Kind: a.Kind, Rank: a.Rank}
		for id := range MaxIDs {
			to := m.ID[id]
			if to == Dropped || a.Requests&(1<<id) == 0 {
				continue
			}
			out.Requests |= 1 << to
			out.Accepted[to] = a.Accepted[id]
			if a.EOS&(1<<id) != 0 {
				out.EOS |= 1 << to
			}
		}
		a = out
	}
	return a, true
}

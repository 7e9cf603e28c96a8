package spec

import (
	"reflect"
	"testing"
	"unsafe"
)

// TestStateIsItsBytes guards what Spec.StateSize promises the checker
// (model.ByteStates): two States are equal exactly when their bytes are,
// so State and every type in it has no padding, and the ranks a
// configuration does not have are the tail of State, so Ranks is its last
// field.
func TestStateIsItsBytes(t *testing.T) {
	var check func(reflect.Type, string)
	check = func(tp reflect.Type, at string) {
		switch tp.Kind() {
		case reflect.Array:
			check(tp.Elem(), at+"[i]")
		case reflect.Struct:
			end := uintptr(0)
			for i := range tp.NumField() {
				f := tp.Field(i)
				if f.Offset != end {
					t.Errorf("%s.%s: %d bytes of padding before it; StateSize's bytes would not decide equality", at, f.Name, f.Offset-end)
				}
				check(f.Type, at+"."+f.Name)
				end = f.Offset + f.Type.Size()
			}
			if end != tp.Size() {
				t.Errorf("%s: %d bytes of padding at its end", at, tp.Size()-end)
			}
		case reflect.Bool, reflect.Uint8, reflect.Int8, reflect.Uint16:
		default:
			t.Errorf("%s: %s is wider than two bytes; it may bring padding (check the layout, then widen this test)", at, tp.Kind())
		}
	}
	check(reflect.TypeFor[State](), "State")
	var s State
	if got, want := stateSize(MaxRanks), int(unsafe.Sizeof(s)); got != want {
		t.Errorf("stateSize(MaxRanks) = %d, want all of State (%d bytes): Ranks must be State's last field", got, want)
	}
}

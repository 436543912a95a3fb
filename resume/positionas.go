package resume

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/resumekit/resumekit/resume/redact"
)

// PositionAs returns the position of type T inside p: p itself when it is a
// T or a non-nil *T (a copy of a *T, so that callers cannot change the
// decision's position), or, for a *RawPosition read back from a decision
// document (or a RawPosition value), its JSON decoded into a new T when its
// kind is one of kinds.
// Resolver packages build their typed accessors (PositionOf) on it; a
// resolver of your own can too.
func PositionAs[T any](p Position, kinds ...string) (*T, error) {
	switch v := any(p).(type) {
	case nil:
		return nil, errors.New("nil position")
	case T:
		return &v, nil
	case *T:
		if v == nil {
			return nil, errors.New("nil position")
		}
		c := *v
		return &c, nil
	case RawPosition:
		return rawAs[T](&v, kinds)
	case *RawPosition:
		if v == nil {
			return nil, errors.New("nil position")
		}
		return rawAs[T](v, kinds)
	default:
		return nil, fmt.Errorf("position of type %T (kind %s), want %s", p, redact.Quote(p.Kind()), strings.Join(kinds, " or "))
	}
}

// rawAs decodes a recorded position of one of kinds into a new T.
func rawAs[T any](v *RawPosition, kinds []string) (*T, error) {
	if !slices.Contains(kinds, v.PositionKind) {
		return nil, fmt.Errorf("position of kind %s, want %s", redact.Quote(v.PositionKind), strings.Join(kinds, " or "))
	}
	out := new(T)
	if err := json.Unmarshal(v.JSON, out); err != nil {
		return nil, fmt.Errorf("decode %s position: %w", v.PositionKind, err)
	}
	return out, nil
}

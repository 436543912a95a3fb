package cli

import (
	"flag"
	"fmt"

	"github.com/resumekit/resumekit/resume/redact"
)

// repeatable is implemented by flag values that take several values
// (--flink-uid A --flink-uid B, several --flink-checkpoints roots).
type repeatable interface{ repeatable() }

func (*stringsFlag) repeatable()    {}
func (*repeatedFlag) repeatable()   {}
func (*keyValueFlag) repeatable()   {}
func (*extraRootsFlag) repeatable() {}
func (*rootsFlag) repeatable()      {}

// onceValue refuses a single-value flag given twice: the flag package
// keeps the last value silently, and --kafka-topic A --kafka-topic B would
// resolve B alone.
type onceValue struct {
	flag.Value
	name  string
	first string
	set   bool
}

func (o *onceValue) Set(s string) error {
	if o.set {
		return fmt.Errorf("given twice (%s, then %s): --%s takes one value", redact.Quote(o.first), redact.Quote(s), o.name)
	}
	if err := o.Value.Set(s); err != nil {
		return err
	}
	o.first, o.set = s, true
	return nil
}

// onceBool is onceValue for a boolean flag (--json needs no value).
type onceBool struct{ *onceValue }

func (onceBool) IsBoolFlag() bool { return true }

// onlyOnce wraps every single-value flag of fs in onceValue.
func onlyOnce(fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		switch f.Value.(type) {
		case repeatable, *onceValue, onceBool:
			return
		}
		o := &onceValue{Value: f.Value, name: f.Name}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			f.Value = onceBool{o}
			return
		}
		f.Value = o
	})
}

// rootsFlag takes a location flag several times: the first value in
// *first (what one location's code reads), the others in *more; several
// Flink roots are one set of snapshots, resolved together.
type rootsFlag struct {
	first *string
	more  *[]string
}

func (f *rootsFlag) String() string {
	if f == nil || f.first == nil {
		return ""
	}
	return *f.first
}

func (f *rootsFlag) Set(s string) error {
	if s == "" {
		return fmt.Errorf("empty location")
	}
	if *f.first == "" {
		*f.first = s
		return nil
	}
	*f.more = append(*f.more, s)
	return nil
}

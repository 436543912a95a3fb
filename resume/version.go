package resume

import (
	"runtime/debug"
	"sync"
)

// ModulePath is the path of the resumekit module.
const ModulePath = "github.com/resumekit/resumekit"

// DevelVersion is the version recorded when the module version is unknown:
// a binary built inside the module's own tree without version control
// information, a replaced module, or a test binary.
const DevelVersion = "(devel)"

// ModuleVersion returns the version of the resumekit module linked into the
// running binary, from [debug.ReadBuildInfo]: the main module's version when
// the binary is built in resumekit's own tree, else the dependency's (its
// replacement's when replaced), and [DevelVersion] when the build records
// none. [Chain.Resolve] records it in [Decision.Version] (the document's
// "resumekit" field).
func ModuleVersion() string {
	moduleVersionOnce.Do(func() { moduleVersion = readModuleVersion() })
	return moduleVersion
}

var (
	moduleVersionOnce sync.Once
	moduleVersion     string
)

func readModuleVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return DevelVersion
	}
	v := ""
	if info.Main.Path == ModulePath {
		v = info.Main.Version
	} else {
		for _, m := range info.Deps {
			if m.Path != ModulePath {
				continue
			}
			v = m.Version
			if m.Replace != nil {
				v = m.Replace.Version
			}
			break
		}
	}
	if v == "" {
		return DevelVersion
	}
	return v
}

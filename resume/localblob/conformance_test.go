package localblob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"gocloud.dev/blob"
	"gocloud.dev/blob/driver"
	"gocloud.dev/blob/drivertest"
)

type harness struct{ dir string }

func newHarness(_ context.Context, t *testing.T) (drivertest.Harness, error) {
	return &harness{dir: t.TempDir()}, nil
}

func (h *harness) MakeDriver(context.Context) (driver.Bucket, error) {
	return openDriver(h.dir, Options{NoSync: true})
}

// MakeDriverForNonexistentBucket: OpenBucket refuses a directory that does
// not exist, so the concept does not apply.
func (h *harness) MakeDriverForNonexistentBucket(context.Context) (driver.Bucket, error) {
	return nil, nil
}
func (h *harness) HTTPClient() *http.Client         { return nil }
func (h *harness) SupportsCopy() bool               { return true }
func (h *harness) SupportsNonSlashDelimiters() bool { return true }
func (h *harness) Close()                           {}

// asTest checks the As types the package doc promises.
type asTest struct{}

func (asTest) Name() string { return "os types" }
func (asTest) BucketCheck(b *blob.Bucket) error {
	var fi os.FileInfo
	var r *os.Root
	if !b.As(&fi) || !fi.IsDir() {
		return errors.New("Bucket.As(*os.FileInfo) failed")
	}
	if !b.As(&r) || r == nil {
		return errors.New("Bucket.As(**os.Root) failed")
	}
	return nil
}
func (asTest) ErrorCheck(b *blob.Bucket, err error) error {
	var pe *os.PathError
	if !b.ErrorAs(err, &pe) {
		return errors.New("ErrorAs(**os.PathError) failed for a missing key")
	}
	return nil
}
func (asTest) BeforeRead(as func(any) bool) error {
	var f *os.File
	if !as(&f) {
		return errors.New("BeforeRead As(**os.File) failed")
	}
	return nil
}
func (asTest) BeforeWrite(as func(any) bool) error {
	var f *os.File
	if !as(&f) {
		return errors.New("BeforeWrite As(**os.File) failed")
	}
	return nil
}
func (asTest) BeforeCopy(func(any) bool) error   { return nil }
func (asTest) BeforeDelete(func(any) bool) error { return nil }
func (asTest) BeforeList(func(any) bool) error   { return nil }
func (asTest) BeforeSign(func(any) bool) error   { return nil }
func (asTest) AttributesCheck(a *blob.Attributes) error {
	var fi os.FileInfo
	if !a.As(&fi) {
		return errors.New("Attributes.As(*os.FileInfo) failed")
	}
	return nil
}
func (asTest) ReaderCheck(r *blob.Reader) error {
	var fi os.FileInfo
	if !r.As(&fi) {
		return errors.New("Reader.As(*os.FileInfo) failed")
	}
	return nil
}
func (asTest) ListObjectCheck(o *blob.ListObject) error {
	if o.IsDir {
		return nil
	}
	var fi os.FileInfo
	if !o.As(&fi) {
		return errors.New("ListObject.As(*os.FileInfo) failed")
	}
	return nil
}

// The conformance subtests that do not apply, and why. Everything else of
// gocloud's suite runs and must pass.
var notApplicable = map[string]string{
	"TestListWeirdKeys":               "keys that are not clean relative paths (.., //, NUL, trailing /) are refused, not escaped",
	"TestKeys/ascii-1":                "a NUL byte in a key is refused",
	"TestKeys/ascii-3":                `the key ends in "/"`,
	"TestKeys/repeatedfwdslashes":     `"//" in a key is refused`,
	"TestKeys/dotdotslash":            `".." segments are refused`,
	"TestListDelimiters/fwdslash":     "localblob never removes directories: an emptied one stays listed",
	"TestAttributes":                  "CacheControl, ContentDisposition, ContentEncoding, ContentLanguage and ContentType are not stored (no sidecar)",
	"TestMetadata":                    "user metadata is refused (no sidecar)",
	"TestCopy/Works":                  "writes user metadata",
	"TestCopy/DoesNotAliasAttributes": "writes user metadata",
	"TestWrite/ContentType_is_discovered_if_not_provided":                 "content types come from the file name only",
	"TestWrite/write_with_explicit_ContentType_overrides_discovery":       "content types are not stored",
	"TestWrite/a_small_text_file_gets_a_ContentType":                      "content types come from the file name only",
	"TestWrite/a_large_jpg_file_gets_a_ContentType":                       "content types come from the file name only",
	"TestWrite/a_large_jpg_file_written_in_two_chunks_gets_a_ContentType": "content types come from the file name only",
}

const conformanceEnv = "LOCALBLOB_CONFORMANCE_CHILD"

// TestConformance runs gocloud's driver conformance suite
// (drivertest.RunConformanceTests) without the subtests in notApplicable. Go
// cannot skip another package's subtests from inside, so the test runs its
// own binary again with -test.run and -test.skip patterns built from the
// table.
func TestConformance(t *testing.T) {
	if os.Getenv(conformanceEnv) != "" {
		drivertest.RunConformanceTests(t, newHarness, []drivertest.AsTest{asTest{}})
		return
	}
	var whole, parents, children []string
	for name := range notApplicable {
		parent, child, nested := strings.Cut(name, "/")
		if !nested {
			whole = append(whole, parent)
			continue
		}
		if !slices.Contains(parents, parent) {
			parents = append(parents, parent)
		}
		children = append(children, child)
	}
	run := fmt.Sprintf("^TestConformance$/^(%s)$", strings.Join(wholeExcept(whole), "|"))
	skip := fmt.Sprintf("^TestConformance$/^(%s)$/^(%s)$", strings.Join(parents, "|"), strings.Join(children, "|"))
	cmd := exec.Command(os.Args[0], "-test.run="+run, "-test.skip="+skip, "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), conformanceEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("gocloud conformance suite failed: %v\n%s", err, out)
	}
	for name := range notApplicable {
		if bytes.Contains(out, []byte("--- PASS: TestConformance/"+name+" ")) {
			t.Errorf("%s ran although it is listed as not applicable", name)
		}
	}
	if !bytes.Contains(out, []byte("--- PASS: TestConformance/TestList ")) || !bytes.Contains(out, []byte("--- PASS: TestConformance/TestCopy/NonExistentSourceFails ")) {
		t.Errorf("the suite did not run the applicable subtests:\n%s", out)
	}
}

// conformanceSubtests are the top-level subtests of RunConformanceTests
// (gocloud v0.47).
var conformanceSubtests = []string{
	"TestNonexistentBucket", "TestList", "TestListWeirdKeys", "TestListDelimiters",
	"TestDirsWithCharactersBeforeDelimiter", "TestRead", "TestAttributes", "TestWrite",
	"TestCanceledWrite", "TestConcurrentWriteAndRead", "TestUploadDownload", "TestMetadata",
	"TestMD5", "TestCopy", "TestDelete", "TestKeys", "TestSignedURL", "TestIfNotExist", "TestAs",
}

func wholeExcept(skip []string) []string {
	var out []string
	for _, s := range conformanceSubtests {
		if !slices.Contains(skip, s) {
			out = append(out, s)
		}
	}
	return out
}

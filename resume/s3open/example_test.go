package s3open_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"

	"gocloud.dev/blob"

	"github.com/resumekit/resumekit/resume/s3open"
)

// An S3 endpoint that sends every read into another bucket: the bucket opened
// through the opener refuses to follow.
func Example() {
	ctx := context.Background()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/other-bucket"+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer srv.Close()

	mux := new(blob.URLMux)
	mux.RegisterBucket(s3open.Scheme, new(s3open.URLOpener))
	// With paimon: paimon.OpenTable(ctx, "s3://…", &paimon.TableOptions{URLMux: mux}).
	b, err := mux.OpenBucket(ctx, "s3://data?anonymous=true&region=us-east-1&use_path_style=true&endpoint="+url.QueryEscape(srv.URL))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer b.Close()
	_, err = b.ReadAll(ctx, "consumer/consumer-job")
	fmt.Println(errors.Is(err, s3open.ErrRedirect))
	// Output:
	// true
}

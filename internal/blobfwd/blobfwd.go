// Package blobfwd is the one forwarding of a gocloud driver call to a
// wrapped *blob.Bucket's portable API, for the two bucket wrappers that
// need it: resume/blobwatch (production: observes calls) and
// resume/resumetest/blobtest (tests: faults, latency, pinned times). Each
// wrapper decides what happens around a call; this package only converts
// between the driver and the portable types.
package blobfwd

import (
	"context"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/driver"
)

// Attributes converts the portable attributes of a key to the driver's,
// with modTime's answer as the modification time (nil keeps it).
func Attributes(key string, a *blob.Attributes, modTime func(key string, t time.Time) time.Time) *driver.Attributes {
	mt := a.ModTime
	if modTime != nil {
		mt = modTime(key, mt)
	}
	return &driver.Attributes{
		CacheControl: a.CacheControl, ContentDisposition: a.ContentDisposition,
		ContentEncoding: a.ContentEncoding, ContentLanguage: a.ContentLanguage,
		ContentType: a.ContentType, Metadata: a.Metadata, CreateTime: a.CreateTime,
		ModTime: mt, Size: a.Size, MD5: a.MD5, ETag: a.ETag,
	}
}

// ListPage lists one page of inner as the driver's ListPaged asks, with
// modTime's answer as each object's modification time (nil keeps it;
// directories have none).
func ListPage(ctx context.Context, inner *blob.Bucket, opts *driver.ListOptions, modTime func(key string, t time.Time) time.Time) (*driver.ListPage, error) {
	if opts.BeforeList != nil {
		if err := opts.BeforeList(func(any) bool { return false }); err != nil {
			return nil, err
		}
	}
	pageSize := opts.PageSize
	if pageSize == 0 {
		pageSize = 1000
	}
	token := opts.PageToken
	if len(token) == 0 {
		token = blob.FirstPageToken // the portable API reads a nil token as "no more pages"
	}
	objs, next, err := inner.ListPage(ctx, token, pageSize, &blob.ListOptions{Prefix: opts.Prefix, Delimiter: opts.Delimiter})
	if err != nil {
		return nil, err
	}
	page := &driver.ListPage{Objects: make([]*driver.ListObject, len(objs))}
	if len(next) > 0 {
		page.NextPageToken = next
	}
	for i, o := range objs {
		mt := o.ModTime
		switch {
		case o.IsDir:
			mt = time.Time{}
		case modTime != nil:
			mt = modTime(o.Key, mt)
		}
		page.Objects[i] = &driver.ListObject{Key: o.Key, ModTime: mt, Size: o.Size, MD5: o.MD5, IsDir: o.IsDir}
	}
	return page, nil
}

// NewWriter opens a writer on inner as the driver's NewTypedWriter asks.
// BeforeWrite reaches inner's driver, so a conditional write (an S3
// If-Match, a localblob.WriteCondition) keeps its condition through a
// wrapping bucket.
func NewWriter(ctx context.Context, inner *blob.Bucket, key, contentType string, opts *driver.WriterOptions) (driver.Writer, error) {
	return inner.NewWriter(ctx, key, &blob.WriterOptions{
		BeforeWrite: opts.BeforeWrite, BufferSize: opts.BufferSize,
		MaxConcurrency: opts.MaxConcurrency, CacheControl: opts.CacheControl,
		ContentDisposition: opts.ContentDisposition, ContentEncoding: opts.ContentEncoding,
		ContentLanguage: opts.ContentLanguage, ContentType: contentType, ContentMD5: opts.ContentMD5,
		Metadata: opts.Metadata, DisableContentTypeDetection: opts.DisableContentTypeDetection,
		IfNotExist: opts.IfNotExist,
	})
}

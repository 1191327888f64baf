// Package s3remote is a sync.Remote in an S3-compatible bucket (AWS S3,
// MinIO, Backblaze B2, Cloudflare R2, Wasabi…), through minio-go.
//
// Objects are keys Prefix + "/" + name. S3 makes a PUT (and a completed
// multipart upload) visible atomically, so Put needs no temp-and-rename.
// minio-go's own retries are turned off (MaxRetries 1): sync.Retry is the
// one retry policy, so attempts do not multiply.
package s3remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	arcsync "github.com/logbook/logbook/sync"
)

// Config says where the bucket is and how to reach it.
type Config struct {
	// Endpoint is host[:port], without scheme, e.g. "s3.eu-west-1.amazonaws.com".
	Endpoint string
	// Bucket holds the objects; EnsureBucket creates it if missing.
	Bucket string
	// Prefix, if set, is prepended as Prefix + "/" to every name, so one
	// bucket can hold several archives. It must pass sync.ValidateName.
	Prefix string
	// AccessKey, SecretKey and SessionToken are static credentials.
	AccessKey, SecretKey, SessionToken string
	// Region is the bucket's region; empty lets minio-go discover it.
	Region string
	// Insecure uses plain HTTP (local MinIO, tests).
	Insecure bool
	// PathStyle forces path-style URLs (endpoint/bucket/key) instead of
	// virtual-host style (bucket.endpoint/key); MinIO and most self-hosted
	// stores need it.
	PathStyle bool
	// PartSize is the multipart chunk for objects above it (default 16 MiB);
	// it bounds Put's memory, as parts are uploaded one at a time.
	PartSize uint64
	// Transport overrides the HTTP transport (tests, proxies).
	Transport http.RoundTripper
}

// Remote is an S3 bucket (or a prefix in one).
type Remote struct {
	client   *minio.Client
	bucket   string
	prefix   string
	partSize uint64
}

var _ arcsync.Remote = (*Remote)(nil)

// New checks cfg and builds the client; it does no I/O.
func New(cfg Config) (*Remote, error) {
	if cfg.Endpoint == "" || cfg.Bucket == "" {
		return nil, errors.New("s3 remote: endpoint and bucket are required")
	}
	prefix := strings.Trim(cfg.Prefix, "/")
	if prefix != "" {
		if err := arcsync.ValidateName(prefix); err != nil {
			return nil, fmt.Errorf("s3 remote prefix: %w", err)
		}
		prefix += "/"
	}
	lookup := minio.BucketLookupAuto
	if cfg.PathStyle {
		lookup = minio.BucketLookupPath
	}
	client, err := minio.New(cfg.Endpoint, &minio.Options{
		Creds:        credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, cfg.SessionToken),
		Secure:       !cfg.Insecure,
		Region:       cfg.Region,
		BucketLookup: lookup,
		Transport:    cfg.Transport,
		MaxRetries:   1,
	})
	if err != nil {
		return nil, fmt.Errorf("s3 remote: %w", err)
	}
	ps := cfg.PartSize
	if ps == 0 {
		ps = 16 << 20
	}
	return &Remote{client: client, bucket: cfg.Bucket, prefix: prefix, partSize: ps}, nil
}

// EnsureBucket creates the bucket if it does not exist.
func (r *Remote) EnsureBucket(ctx context.Context) error {
	ok, err := r.client.BucketExists(ctx, r.bucket)
	if err != nil {
		return mapErr(ctx, "bucket "+r.bucket, err)
	}
	if ok {
		return nil
	}
	if err := r.client.MakeBucket(ctx, r.bucket, minio.MakeBucketOptions{}); err != nil {
		if c := minio.ToErrorResponse(err).Code; c == "BucketAlreadyOwnedByYou" || c == "BucketAlreadyExists" {
			return nil
		}
		return mapErr(ctx, "make bucket "+r.bucket, err)
	}
	return nil
}

// mapErr turns minio errors into the sync.Remote contract: a missing key is
// ErrNotExist, throttling, 5xx and network failures are Transient, and a
// cancelled ctx is reported as ctx's own error.
func mapErr(ctx context.Context, what string, err error) error {
	if err == nil {
		return nil
	}
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("%s: %w", what, cerr)
	}
	resp := minio.ToErrorResponse(err)
	switch {
	case resp.Code == "NoSuchKey" || resp.Code == "NotFound" || (resp.StatusCode == http.StatusNotFound && resp.Code != "NoSuchBucket"):
		return fmt.Errorf("%s: %w", what, arcsync.ErrNotExist)
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusRequestTimeout,
		resp.Code == "SlowDown" || resp.Code == "RequestTimeout" || resp.Code == "InternalError":
		return arcsync.Transient(fmt.Errorf("%s: %w", what, err))
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return arcsync.Transient(fmt.Errorf("%s: %w", what, err))
	}
	return fmt.Errorf("%s: %w", what, err)
}

// List implements sync.Remote; minio-go pages through ListObjectsV2 (1000
// keys a page) and S3 returns keys in byte order.
func (r *Remote) List(ctx context.Context, prefix string, fn func(arcsync.Object) error) error {
	if err := arcsync.ValidatePrefix(prefix); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// Cancelling lctx when fn stops us ends minio-go's listing goroutine.
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for info := range r.client.ListObjects(lctx, r.bucket, minio.ListObjectsOptions{Prefix: r.prefix + prefix, Recursive: true}) {
		if info.Err != nil {
			return mapErr(ctx, fmt.Sprintf("list %q", prefix), info.Err)
		}
		name := strings.TrimPrefix(info.Key, r.prefix)
		if arcsync.ValidateName(name) != nil {
			continue // written by something else; not ours
		}
		if err := fn(arcsync.Object{Name: name, Size: info.Size, ModTime: info.LastModified}); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// Open implements sync.Remote. It stats first so a missing key is reported
// by Open, not by the first Read, then streams the body.
func (r *Remote) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	if err := arcsync.ValidateName(name); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	obj, err := r.client.GetObject(ctx, r.bucket, r.prefix+name, minio.GetObjectOptions{})
	if err != nil {
		return nil, mapErr(ctx, "open "+name, err)
	}
	// Stat issues the GET and keeps its body for the reads that follow.
	if _, err := obj.Stat(); err != nil {
		obj.Close()
		return nil, mapErr(ctx, "open "+name, err)
	}
	return &reader{obj: obj, ctx: ctx, name: name}, nil
}

// reader maps errors met while streaming a body.
type reader struct {
	obj  *minio.Object
	ctx  context.Context
	name string
}

func (rd *reader) Read(p []byte) (int, error) {
	n, err := rd.obj.Read(p)
	if err != nil && err != io.EOF {
		err = mapErr(rd.ctx, "read "+rd.name, err)
	}
	return n, err
}

func (rd *reader) Close() error { return rd.obj.Close() }

// Stat implements sync.Remote.
func (r *Remote) Stat(ctx context.Context, name string) (arcsync.Object, error) {
	if err := arcsync.ValidateName(name); err != nil {
		return arcsync.Object{}, err
	}
	if err := ctx.Err(); err != nil {
		return arcsync.Object{}, err
	}
	info, err := r.client.StatObject(ctx, r.bucket, r.prefix+name, minio.StatObjectOptions{})
	if err != nil {
		return arcsync.Object{}, mapErr(ctx, "stat "+name, err)
	}
	return arcsync.Object{Name: name, Size: info.Size, ModTime: info.LastModified}, nil
}

// Put implements sync.Remote. The body is streamed; objects larger than
// PartSize go up as a multipart upload, one part buffered at a time.
func (r *Remote) Put(ctx context.Context, name string, rd io.Reader, size int64) error {
	if err := arcsync.ValidateName(name); err != nil {
		return err
	}
	if size < 0 {
		return fmt.Errorf("put %s: negative size: %w", name, arcsync.ErrSizeMismatch)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	sr := &sizeReader{r: arcsync.ContextReader(ctx, rd), size: size, left: size}
	_, err := r.client.PutObject(ctx, r.bucket, r.prefix+name, sr, size, minio.PutObjectOptions{
		ContentType: "application/octet-stream",
		PartSize:    r.partSize,
		NumThreads:  1,
		// Send UNSIGNED-PAYLOAD instead of the aws-chunked streaming
		// signature minio-go uses over plain HTTP. Every piece is
		// authenticated end to end by age, HTTPS protects real endpoints,
		// and not every S3-compatible store (gofakes3 among them) decodes
		// the chunked-with-trailer encoding.
		DisableContentSha256: true,
	})
	if err != nil {
		// The reader's own failure (short/long input, caller's error,
		// cancellation) is the real cause; minio-go may have wrapped or
		// replaced it.
		if sr.err != nil && ctx.Err() == nil {
			return fmt.Errorf("put %s: %w", name, sr.err)
		}
		return mapErr(ctx, "put "+name, err)
	}
	return nil
}

// sizeReader enforces that the input is exactly the announced size, and
// notices an over-long input before the last byte goes out, so the upload
// fails instead of completing with a truncated object.
type sizeReader struct {
	r          io.Reader
	size, left int64
	err        error
}

func (s *sizeReader) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if s.left == 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > s.left {
		p = p[:s.left]
	}
	n, err := s.r.Read(p)
	s.left -= int64(n)
	if s.left == 0 && (err == nil || err == io.EOF) {
		var probe [1]byte
		k, perr := io.ReadFull(s.r, probe[:])
		if k > 0 {
			s.err = fmt.Errorf("input longer than %d bytes: %w", s.size, arcsync.ErrSizeMismatch)
			return 0, s.err
		}
		if perr != io.EOF && perr != io.ErrUnexpectedEOF {
			s.err = perr
			return 0, s.err
		}
		return n, io.EOF
	}
	if err == io.EOF {
		s.err = fmt.Errorf("input ended %d bytes short: %w", s.left, arcsync.ErrSizeMismatch)
		return n, s.err
	}
	if err != nil {
		s.err = err
	}
	return n, err
}

// Delete implements sync.Remote; S3 deletes of missing keys succeed.
func (r *Remote) Delete(ctx context.Context, name string) error {
	if err := arcsync.ValidateName(name); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := r.client.RemoveObject(ctx, r.bucket, r.prefix+name, minio.RemoveObjectOptions{}); err != nil {
		return mapErr(ctx, "delete "+name, err)
	}
	return nil
}

// Package pgtest starts a throwaway PostgreSQL cluster for tests: initdb in
// a new temporary directory, the server listening only on a unix socket in
// that directory, fsync off, every local connection trusted. Where the
// caller is root, the cluster runs as the unprivileged user nobody (initdb
// refuses root).
//
// Tests call Shared, which skips with the reason when PostgreSQL cannot be
// started here (no binaries, no unprivileged user) unless
// STET_REQUIRE_POSTGRES=1 is set, which turns the skip into a failure (CI
// installs PostgreSQL and sets it). OwnTLS starts a cluster of the test's
// own that also listens on a loopback TCP port, only over TLS, with a
// certificate authority of its own (CA, TLSURL with sslmode=verify-full).
//
// What it must not do: listen on anything but its own unix socket (and,
// for OwnTLS, a port of 127.0.0.1 that takes TLS only), touch a
// cluster it did not create, or outlive the test process (the server gets
// SIGKILL when the process that started it dies, on Linux; Stop ends it
// otherwise).
package pgtest

package pgtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// tlsSetup is where a TLS cluster listens and the files it serves.
type tlsSetup struct {
	port      string // the loopback TCP port
	ca        string // the certificate authority's certificate (PEM)
	cert, key string // the server's certificate and key
}

// CA is the path of the certificate (PEM) of the authority that signed a
// StartTLS cluster's certificate: the sslrootcert a client verifies it
// with. It is "" for a cluster without TLS.
func (s *Server) CA() string {
	if s.tls == nil {
		return ""
	}
	return s.tls.ca
}

// TLSURL is the connection string of database db as role over TLS to a
// StartTLS cluster: host, port, and sslmode=verify-full with rootCert as
// sslrootcert, as a client of a real server is configured.
func (s *Server) TLSURL(host, db, role, rootCert string) string {
	q := url.Values{"sslmode": {"verify-full"}, "sslrootcert": {rootCert}}
	return (&url.URL{Scheme: "postgres", User: url.User(role), Host: net.JoinHostPort(host, s.port()),
		Path: "/" + db, RawQuery: q.Encode()}).String()
}

// setupTLS writes a certificate authority and a server certificate for
// the name localhost into the cluster's directory, lets TCP
// connections in only over TLS (pg_hba.conf: hostssl), and picks a free
// loopback port.
func (s *Server) setupTLS() (*tlsSetup, error) {
	caCert, caKey, err := NewCA(s.dir, "ca")
	if err != nil {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "localhost"},
		DNSNames:     []string{"localhost"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	t := &tlsSetup{ca: filepath.Join(s.dir, "ca.crt"), cert: filepath.Join(s.dir, "server.crt"), key: filepath.Join(s.dir, "server.key")}
	// The server refuses a key that others can read; it reads both as the
	// cluster's user.
	if err := s.writeOwned(t.cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		return nil, err
	}
	if err := s.writeOwned(t.key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		return nil, err
	}
	hba := "local all all trust\nhostssl all all 127.0.0.1/32 trust\n"
	if err := os.WriteFile(filepath.Join(s.data(), "pg_hba.conf"), []byte(hba), 0o600); err != nil { // not a workspace path: the test cluster's configuration
		return nil, err
	}
	if err := s.cred.own(filepath.Join(s.data(), "pg_hba.conf")); err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("%w: no loopback port: %v", ErrUnavailable, err)
	}
	t.port = strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	return t, nil
}

// writeOwned writes a file of the cluster's directory, owned by the
// cluster's user.
func (s *Server) writeOwned(name string, b []byte, mode os.FileMode) error {
	if err := os.WriteFile(name, b, mode); err != nil { // not a workspace path: the test cluster's own directory
		return err
	}
	return s.cred.own(name)
}

// NewCA makes a self-signed certificate authority and writes its
// certificate to dir/<name>.crt (PEM); a test uses a second one as a
// root that did not sign the server's certificate.
func NewCA(dir, name string) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "stet test CA " + name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, name+".crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil { // not a workspace path: a test's certificate
		return nil, nil, err
	}
	return cert, key, nil
}

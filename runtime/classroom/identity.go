package classroom

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The join code a student types is one argument in two parts, e.g.
//
//	4F7K-Q2-8K3M-T9QX-2HVD-R4NA
//	└─────┘ └─────────────────┘
//	 secret  certificate pin
//
// The secret (6 symbols, 30 bits) is what the host checks; the pin (16 symbols, 80 bits) is
// the first 80 bits of the SHA-256 of the host certificate's public key, which the student
// checks before sending anything. Symbols are Crockford's base32 (no I, L, O, U); reading is
// case-insensitive and maps O to 0 and I, L to 1. docs/classroom.md justifies the lengths.
const (
	alphabet     = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	secretLen    = 6
	pinLen       = 16 // symbols; 5 bits each
	pinBytes     = pinLen * 5 / 8
	joinCodeLen  = secretLen + pinLen
	exampleCode  = "4F7K-Q2-8K3M-T9QX-2HVD-R4NA"
	identityCert = "CERTIFICATE"
	identityKey  = "PRIVATE KEY"
	identityCode = "KUBEWALK CLASS CODE"
)

// Identity is what makes a class recognisable across host restarts: the TLS certificate (and
// its key) and the join secret. Persist it with Save to keep the same join line.
type Identity struct {
	// Cert is the host's self-signed certificate with its ECDSA P-256 key.
	Cert tls.Certificate
	// Secret is the 6-symbol part of the join code, normalised ("4F7K-Q2").
	Secret string
}

// NewIdentity generates a fresh certificate (ECDSA P-256, in memory) and a random secret.
func NewIdentity() (*Identity, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("classroom identity: generate key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("classroom identity: serial: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "kubewalk class"},
		NotBefore:    now.Add(-time.Hour),
		// Students pin the public key, not the chain or the dates; a year covers a persisted
		// identity reused for a course.
		NotAfter:              now.Add(365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		DNSNames:              []string{"kubewalk-class"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("classroom identity: self-sign: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("classroom identity: parse certificate: %w", err)
	}
	secret, err := randomSymbols(secretLen)
	if err != nil {
		return nil, fmt.Errorf("classroom identity: join secret: %w", err)
	}
	return &Identity{
		Cert:   tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf},
		Secret: group(secret, 4, 2),
	}, nil
}

// Fingerprint returns the pin part of the join code ("8K3M-T9QX-2HVD-R4NA").
func (id *Identity) Fingerprint() string {
	return group(encodePin(pinOf(id.Cert.Leaf)), 4, 4, 4, 4)
}

// JoinCode returns the whole code a student types: secret and pin.
func (id *Identity) JoinCode() string { return id.Secret + "-" + id.Fingerprint() }

// Save writes the identity (key, certificate, secret) to path as PEM, readable by the owner
// only (0600), replacing any file there.
func (id *Identity) Save(path string) error {
	key, err := x509.MarshalPKCS8PrivateKey(id.Cert.PrivateKey)
	if err != nil {
		return fmt.Errorf("classroom identity %s: encode key: %w", path, err)
	}
	var buf bytes.Buffer
	for _, b := range []*pem.Block{
		{Type: identityCode, Bytes: []byte(id.Secret)},
		{Type: identityCert, Bytes: id.Cert.Certificate[0]},
		{Type: identityKey, Bytes: key},
	} {
		if err := pem.Encode(&buf, b); err != nil {
			return fmt.Errorf("classroom identity %s: %w", path, err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("classroom identity %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".class-identity-*")
	if err != nil {
		return fmt.Errorf("classroom identity %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("classroom identity %s: %w", path, err)
	}
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		tmp.Close()
		return fmt.Errorf("classroom identity %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("classroom identity %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("classroom identity %s: %w", path, err)
	}
	return nil
}

// LoadIdentity reads an identity written by Save. A file others can read or write is refused
// (it holds the class's key and secret).
func LoadIdentity(path string) (*Identity, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("classroom identity: %w", err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("classroom identity %s: mode %#o lets others read it; run chmod 600 %s", path, fi.Mode().Perm(), path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("classroom identity: %w", err)
	}
	var secret string
	var certDER, keyDER []byte
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			break
		}
		switch b.Type {
		case identityCode:
			secret = string(b.Bytes)
		case identityCert:
			certDER = b.Bytes
		case identityKey:
			keyDER = b.Bytes
		}
	}
	if certDER == nil || keyDER == nil || secret == "" {
		return nil, fmt.Errorf("classroom identity %s: want %q, %q and %q PEM blocks", path, identityCode, identityCert, identityKey)
	}
	norm, err := normalise(secret)
	if err != nil || len(norm) != secretLen {
		return nil, fmt.Errorf("classroom identity %s: bad join secret %q", path, secret)
	}
	key, err := x509.ParsePKCS8PrivateKey(keyDER)
	if err != nil {
		return nil, fmt.Errorf("classroom identity %s: key: %w", path, err)
	}
	leaf, err := x509.ParseCertificate(certDER)
	if err != nil {
		return nil, fmt.Errorf("classroom identity %s: certificate: %w", path, err)
	}
	ek, ok := key.(*ecdsa.PrivateKey)
	if !ok || !ek.PublicKey.Equal(leaf.PublicKey) {
		return nil, fmt.Errorf("classroom identity %s: the key does not belong to the certificate", path)
	}
	return &Identity{
		Cert:   tls.Certificate{Certificate: [][]byte{certDER}, PrivateKey: ek, Leaf: leaf},
		Secret: group(norm, 4, 2),
	}, nil
}

// LoadOrCreateIdentity loads path, or creates a new identity and saves it there if the file
// does not exist. created says which.
func LoadOrCreateIdentity(path string) (id *Identity, created bool, err error) {
	id, err = LoadIdentity(path)
	if err == nil {
		return id, false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, false, err
	}
	id, err = NewIdentity()
	if err != nil {
		return nil, false, err
	}
	if err := id.Save(path); err != nil {
		return nil, false, err
	}
	return id, true, nil
}

// joinCode is a parsed join code.
type joinCode struct {
	secret string // normalised, grouped ("4F7K-Q2")
	pin    [pinBytes]byte
}

// CheckJoinCode returns the error Join would give for a malformed join code, nil for a
// well-formed one (it says nothing of whether the code is right).
func CheckJoinCode(s string) error {
	_, err := parseJoinCode(s)
	return err
}

// parseJoinCode reads what a student typed. Errors wrap ErrBadJoinCode and say what is wrong.
func parseJoinCode(s string) (joinCode, error) {
	norm, err := normalise(s)
	if err != nil {
		return joinCode{}, err
	}
	switch {
	case len(norm) == secretLen:
		return joinCode{}, fmt.Errorf("%w: %q has the class secret but not the certificate fingerprint; type the whole code shown on the instructor's screen (like %s)", ErrBadJoinCode, s, exampleCode)
	case len(norm) != joinCodeLen:
		return joinCode{}, fmt.Errorf("%w: %q has %d symbols, want %d (like %s)", ErrBadJoinCode, s, len(norm), joinCodeLen, exampleCode)
	}
	var jc joinCode
	jc.secret = group(norm[:secretLen], 4, 2)
	pin, err := decodePin(norm[secretLen:])
	if err != nil {
		return joinCode{}, fmt.Errorf("%w: %q: %v", ErrBadJoinCode, s, err)
	}
	jc.pin = pin
	return jc, nil
}

// normalise upper-cases s, drops dashes and spaces, maps O→0 and I, L→1, and rejects any other
// symbol outside the alphabet.
func normalise(s string) (string, error) {
	var b strings.Builder
	for _, r := range strings.ToUpper(s) {
		switch r {
		case '-', ' ', '\t':
			continue
		case 'O':
			r = '0'
		case 'I', 'L':
			r = '1'
		}
		if !strings.ContainsRune(alphabet, r) {
			return "", fmt.Errorf("%w: %q contains %q, which is not in a join code (letters and digits except U)", ErrBadJoinCode, s, r)
		}
		b.WriteRune(r)
	}
	return b.String(), nil
}

// pinOf is the first 80 bits of the SHA-256 of the certificate's SubjectPublicKeyInfo: the key
// is what a TLS handshake proves possession of, and a certificate re-issued for the same key
// keeps the pin.
func pinOf(cert *x509.Certificate) [pinBytes]byte {
	sum := sha256.Sum256(cert.RawSubjectPublicKeyInfo)
	var p [pinBytes]byte
	copy(p[:], sum[:])
	return p
}

func encodePin(p [pinBytes]byte) string {
	var b strings.Builder
	var acc uint64
	bits := 0
	for _, c := range p {
		acc = acc<<8 | uint64(c)
		bits += 8
		for bits >= 5 {
			bits -= 5
			b.WriteByte(alphabet[(acc>>bits)&31])
		}
	}
	return b.String()
}

func decodePin(s string) ([pinBytes]byte, error) {
	var p [pinBytes]byte
	if len(s) != pinLen {
		return p, fmt.Errorf("fingerprint has %d symbols, want %d", len(s), pinLen)
	}
	var acc uint64
	bits, n := 0, 0
	for i := 0; i < len(s); i++ {
		v := strings.IndexByte(alphabet, s[i])
		if v < 0 {
			return p, fmt.Errorf("symbol %q not in the alphabet", s[i])
		}
		acc = acc<<5 | uint64(v)
		bits += 5
		if bits >= 8 {
			bits -= 8
			p[n] = byte(acc >> bits)
			n++
		}
	}
	return p, nil
}

// randomSymbols returns n symbols from the alphabet, uniformly (32 divides 256).
func randomSymbols(n int) (string, error) {
	buf := make([]byte, n)
	if _, err := rand.Read(buf); err != nil {
		return "", err
	}
	for i := range buf {
		buf[i] = alphabet[buf[i]&31]
	}
	return string(buf), nil
}

// group inserts dashes after the given group sizes: group("4F7KQ2", 4, 2) = "4F7K-Q2".
func group(s string, sizes ...int) string {
	var parts []string
	for _, n := range sizes {
		if n > len(s) {
			n = len(s)
		}
		parts = append(parts, s[:n])
		s = s[n:]
	}
	if s != "" {
		parts = append(parts, s)
	}
	return strings.Join(parts, "-")
}

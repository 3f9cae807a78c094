#pragma once
// Provisioning of a secured loopback etcd, for `leasesim live` and the
// tests: a fresh certificate authority with a server certificate (for
// 127.0.0.1, localhost and etcd.leasesim.test, usable by peers too) and a
// client certificate, made with Debian's openssl in a given directory; and
// etcd auth switched on through the gateway (a root user, one user whose
// role may read and write one key prefix).

#include <string>

#include "backends/etcd/etcd_http.h"

namespace leasesim::etcd {

// The files MakeCertificates writes under its directory.
struct CertificateFiles {
  std::string ca;           // ca.crt
  std::string server_cert;  // server.crt (serverAuth and clientAuth: also the peers')
  std::string server_key;   // server.key
  std::string client_cert;  // client.crt (O=leasesim-client, no CN: see MakeCertificates)
  std::string client_key;   // client.key
};

// The name besides 127.0.0.1 and localhost the server certificate carries.
inline constexpr const char* kTestServerName = "etcd.leasesim.test";

// Makes a CA and its certificates in `dir` (which must exist), valid for a
// week. The client certificate has no CommonName: etcd 3.4's gateway refuses
// a client certificate with one while auth is on; `prefix` names the files' stem ("" or e.g. "other-"). An error, empty on success.
std::string MakeCertificates(const std::string& dir, CertificateFiles& files, const std::string& prefix = "");

struct AuthSetup {
  std::string root_password;
  std::string user;
  std::string password;
  std::string role;
  std::string prefix;  // the user's role may read and write every key under it
};

// Adds root and the user with its role through `admin` (a client without
// auth), then enables auth. An error naming the step, empty on success.
std::string EnableAuth(EtcdHttp& admin, const AuthSetup& setup);

// A random password for a run (hex, from the kernel's random source).
std::string RandomSecret();

}  // namespace leasesim::etcd

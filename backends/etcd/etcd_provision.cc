#include "backends/etcd/etcd_provision.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <fstream>
#include <random>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/etcd/etcd_json.h"

extern char** environ;

namespace leasesim::etcd {
namespace {

// Runs `argv` (found on PATH), its output discarded; true when it exited 0.
bool Run(const std::vector<std::string>& argv, std::string& error) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    error = argv[0] + ": cannot run (apt-get install openssl)";
    return false;
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
  error = argv[0] + " " + argv[1] + " failed making " + argv.back();
  return false;
}

bool WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  return static_cast<bool>(out);
}

std::vector<std::string> NewKeyAndRequest(const std::string& key, const std::string& csr, const std::string& subject) {
  return {"openssl", "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
          "-keyout", key, "-subj", subject, "-out", csr};
}

std::vector<std::string> Sign(const CertificateFiles& f, const std::string& ca_key, const std::string& csr,
                              const std::string& ext, const std::string& cert) {
  return {"openssl", "x509", "-req", "-in", csr, "-CA", f.ca, "-CAkey", ca_key, "-CAcreateserial",
          "-days", "7", "-extfile", ext, "-out", cert};
}

}  // namespace

std::string MakeCertificates(const std::string& dir, CertificateFiles& f, const std::string& prefix) {
  const std::string p = dir + "/" + prefix;
  f = CertificateFiles{p + "ca.crt", p + "server.crt", p + "server.key", p + "client.crt", p + "client.key"};
  const std::string server_ext = p + "server.ext";
  const std::string client_ext = p + "client.ext";
  if (!WriteFile(server_ext, std::string("subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:") + kTestServerName +
                                 "\nextendedKeyUsage=serverAuth,clientAuth\n") ||
      !WriteFile(client_ext, "extendedKeyUsage=clientAuth\n")) {
    return "cannot write the certificate extensions under " + dir;
  }
  const std::vector<std::vector<std::string>> steps = {
      {"openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
       "-keyout", p + "ca.key", "-subj", "/CN=leasesim-run-ca", "-days", "7", "-out", f.ca},
      NewKeyAndRequest(f.server_key, p + "server.csr", "/CN=etcd"),
      Sign(f, p + "ca.key", p + "server.csr", server_ext, f.server_cert),
      // No CommonName: etcd 3.4's gateway refuses a client certificate with
      // one while auth is on (it could not pass the name on as the user).
      NewKeyAndRequest(f.client_key, p + "client.csr", "/O=leasesim-client"),
      Sign(f, p + "ca.key", p + "client.csr", client_ext, f.client_cert)};
  std::string error;
  for (const std::vector<std::string>& step : steps) {
    if (!Run(step, error)) return error;
  }
  return {};
}

std::string EnableAuth(EtcdHttp& admin, const AuthSetup& s) {
  using Json = nlohmann::json;
  const Json perm = {{"permType", "READWRITE"}, {"key", Base64Encode(s.prefix)},
                     {"range_end", Base64Encode(PrefixEnd(s.prefix))}};
  const std::pair<const char*, Json> steps[] = {
      {"/v3/auth/user/add", {{"name", "root"}, {"password", s.root_password}}},
      {"/v3/auth/user/grant", {{"user", "root"}, {"role", "root"}}},
      {"/v3/auth/role/add", {{"name", s.role}}},
      {"/v3/auth/role/grant", {{"name", s.role}, {"perm", perm}}},
      {"/v3/auth/user/add", {{"name", s.user}, {"password", s.password}}},
      {"/v3/auth/user/grant", {{"user", s.user}, {"role", s.role}}},
      {"/v3/auth/enable", Json::object()},
  };
  for (const auto& [path, body] : steps) {
    const HttpResult result = admin.Post(path, body.dump(), 5'000 * base::kNanosPerMilli);
    if (result.verdict != Verdict::kResult) return std::string("etcd auth setup: ") + path + ": " + result.error;
  }
  return {};
}

std::string RandomSecret() {
  // determinism-ok: live mode — a password for one run.
  std::random_device source;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string secret;
  for (int i = 0; i < 32; ++i) secret += kHex[source() % 16];
  return secret;
}

}  // namespace leasesim::etcd

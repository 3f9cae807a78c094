// Against a real etcd with TLS, client-certificate auth and etcd auth
// (certificates made here with openssl): the server is verified, the client
// certificate presented, and every misconfiguration a deployment can make —
// wrong CA, wrong server name, wrong credentials, a token that expired and
// cannot be renewed, a role missing the lease key or the ledger prefix —
// gives an error naming its cause. ctest label "live"; skipped without
// /usr/bin/etcd or openssl.

#include <unistd.h>

#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "backends/etcd/etcd_access.h"
#include "backends/etcd/etcd_http.h"
#include "backends/etcd/etcd_kv.h"
#include "backends/etcd/etcd_ledger.h"
#include "backends/etcd/etcd_provision.h"
#include "backends/etcd/etcd_store.h"
#include "backends/etcd/one_etcd_test_util.h"
#include "base/units.h"

namespace leasesim::etcd {
namespace {

using base::Millis;
constexpr core::Nanos kCall = Millis(3'000);

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// What on_error was told.
struct Reports {
  std::mutex mu;
  std::vector<std::string> messages;
  std::function<void(const std::string&)> Sink() {
    return [this](const std::string& m) {
      std::lock_guard<std::mutex> lock(mu);
      messages.push_back(m);
    };
  }
  bool Any(const std::string& part) {
    std::lock_guard<std::mutex> lock(mu);
    for (const std::string& m : messages) {
      if (Contains(m, part)) return true;
    }
    return false;
  }
};

// The fixture: fresh certificates and a TLS etcd member requiring client
// certificates, per test.
class EtcdLiveSecure : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::access(kEtcd, X_OK) != 0) GTEST_SKIP() << kEtcd << " is absent (apt-get install etcd-server)";
    if (std::system("command -v openssl >/dev/null 2>&1") != 0) GTEST_SKIP() << "openssl is absent";
    char dir_template[] = "/tmp/leasesim-certs-test.XXXXXX";
    certs_dir_ = ::mkdtemp(dir_template);
    ASSERT_EQ(MakeCertificates(certs_dir_, certs_), "");
    ASSERT_EQ(MakeCertificates(certs_dir_, other_, "other-"), "");
    etcd_ = std::make_unique<OneEtcd>(OneEtcdOptions{
        .scheme = "https",
        .flags = {"--cert-file", certs_.server_cert, "--key-file", certs_.server_key, "--trusted-ca-file", certs_.ca,
                  "--client-cert-auth", "--bcrypt-cost", "4", "--auth-token-ttl", "1"},
        .client_tls = Tls()});
    ASSERT_TRUE(etcd_->ready()) << "etcd did not start (log: " << etcd_->dir() << "/etcd.log)";
  }
  void TearDown() override {
    etcd_.reset();
    std::error_code ignored;
    if (!certs_dir_.empty()) std::filesystem::remove_all(certs_dir_, ignored);
  }
  TlsOptions Tls() const { return {.ca_file = certs_.ca, .cert_file = certs_.client_cert, .key_file = certs_.client_key}; }
  EndpointOptions Options(AuthOptions auth = {}) {
    return {.endpoints = {etcd_->url()}, .tls = Tls(), .auth = std::move(auth), .on_error = reports_.Sink()};
  }
  // Auth on; the user "svc" may read and write under `prefix`.
  void EnableAuthFor(const std::string& prefix) {
    EtcdHttp admin(Options());
    ASSERT_EQ(EnableAuth(admin, {.root_password = "rootpw", .user = "svc", .password = "svcpw", .role = "svc",
                                 .prefix = prefix}),
              "");
  }
  HttpResult AsRoot(const std::string& path, const nlohmann::json& body) {
    EtcdHttp root(Options({.user = "root", .password = "rootpw"}));
    return root.Post(path, body.dump(), kCall);
  }

  std::string certs_dir_;
  CertificateFiles certs_, other_;
  std::unique_ptr<OneEtcd> etcd_;
  Reports reports_;
};

TEST_F(EtcdLiveSecure, TlsVerifiesTheServerAndItsNameAndPresentsTheClientCertificate) {
  EtcdHttp good(Options());
  EXPECT_EQ(good.Post("/v3/kv/range", RangeBody("k"), kCall).verdict, Verdict::kResult);
  // The name checked may differ from the address dialled.
  EndpointOptions named = Options();
  named.tls.server_name = kTestServerName;
  EXPECT_EQ(EtcdHttp(named).Post("/v3/kv/range", RangeBody("k"), kCall).verdict, Verdict::kResult);
  named.tls.server_name = "wrong.example";
  const HttpResult wrong_name = EtcdHttp(named).Post("/v3/kv/range", RangeBody("k"), kCall);
  EXPECT_EQ(wrong_name.cause, FailureCause::kTls) << wrong_name.error;
  EXPECT_EQ(wrong_name.verdict, Verdict::kNotApplied);  // the handshake failed: nothing was sent
  EXPECT_TRUE(Contains(wrong_name.error, "TLS to ")) << wrong_name.error;
  // A server whose certificate another CA signed is refused.
  EndpointOptions other_ca = Options();
  other_ca.tls.ca_file = other_.ca;
  const HttpResult untrusted = EtcdHttp(other_ca).Post("/v3/kv/range", RangeBody("k"), kCall);
  EXPECT_EQ(untrusted.cause, FailureCause::kTls) << untrusted.error;
  EXPECT_TRUE(reports_.Any("TLS to "));
  // Without a client certificate etcd (--client-cert-auth) refuses us.
  EndpointOptions anonymous = Options();
  anonymous.tls.cert_file.clear();
  anonymous.tls.key_file.clear();
  const HttpResult refused = EtcdHttp(anonymous).Post("/v3/kv/range", RangeBody("k"), kCall);
  // (TLS 1.3: the handshake completes on our side, and etcd's rejection
  // arrives as the connection breaking.)
  EXPECT_NE(refused.verdict, Verdict::kResult);
  EXPECT_TRUE(refused.cause == FailureCause::kTls || refused.cause == FailureCause::kBroken) << refused.error;
}

// The KV seam's calls, streams included, carry the TLS client certificate
// and the auth token; a watch on keys the user may not read is cancelled by
// etcd (v3rpc/watch.go: "permission denied"), which the client reports as
// kUnavailable and through on_error.
TEST_F(EtcdLiveSecure, TheKvSeamWorksUnderTlsAndEtcdAuth) {
  EnableAuthFor("app/");
  EtcdHttp http(Options({.user = "svc", .password = "svcpw"}));
  EtcdKvClient kv(http);
  const core::KvLeaseResult lease = kv.LeaseGrant(Millis(5'000), kCall);
  ASSERT_EQ(lease.status, core::KvStatus::kOk);
  core::KvTxn put;
  put.success.push_back(core::KvRequestOp::Put("app/k", "v", lease.id));
  const core::KvTxnResult written = kv.Txn(put, kCall);
  ASSERT_EQ(written.status, core::KvStatus::kOk);
  const core::KvWatchResult seen = kv.Watch(core::KvKeys::Prefix("app/"), written.revision, kCall);
  ASSERT_EQ(seen.status, core::KvStatus::kOk);
  ASSERT_EQ(seen.events.size(), 1u);
  EXPECT_EQ(seen.events[0].kv.lease, lease.id);
  EXPECT_EQ(kv.LeaseKeepAlive(lease.id, kCall).status, core::KvStatus::kOk);
  EXPECT_EQ(kv.Watch(core::KvKeys::Prefix("other/"), 0, kCall).status, core::KvStatus::kUnavailable);
  EXPECT_TRUE(reports_.Any("etcd cancelled a watch on \"other/\"")) << "on_error was not told";
  core::KvTxn forbidden;
  forbidden.success.push_back(core::KvRequestOp::Put("other/k", "v"));
  EXPECT_EQ(kv.Txn(forbidden, kCall).status, core::KvStatus::kUnavailable);
  EXPECT_TRUE(reports_.Any("other/") || reports_.Any("permission")) << "on_error was not told";
  EXPECT_EQ(kv.LeaseRevoke(lease.id, kCall).status, core::KvStatus::kOk);
}

TEST_F(EtcdLiveSecure, OptionsAreCheckedFieldByField) {
  EndpointOptions o = Options();
  EXPECT_TRUE(ValidateEndpointOptions(o).empty());
  o.endpoints = {"http://127.0.0.1:1"};
  o.tls.ca_file = certs_dir_ + "/absent.crt";
  o.tls.key_file.clear();
  const std::vector<std::string> errors = ValidateEndpointOptions(o);
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0], "endpoints: http://127.0.0.1:1 is not https:// but TLS options are given");
  EXPECT_EQ(errors[1], "tls.ca_file: cannot read " + certs_dir_ + "/absent.crt");
  EXPECT_TRUE(Contains(errors[2], "give both"));
}

TEST_F(EtcdLiveSecure, WrongCredentialsAreNamed) {
  EnableAuthFor("app/");
  EtcdHttp http(Options({.user = "svc", .password = "not-the-password"}));
  EtcdStoreClient store(http);
  EXPECT_EQ(store.Read("app/lease", kCall).status, core::StoreStatus::kUnavailable);  // nothing was done
  const HttpResult result = http.Post("/v3/kv/range", RangeBody("app/lease"), kCall);
  EXPECT_EQ(result.cause, FailureCause::kWrongCredentials) << result.error;
  EXPECT_TRUE(Contains(result.error, "etcd auth as user \"svc\" failed: wrong user name or password")) << result.error;
  EXPECT_TRUE(reports_.Any("wrong user name or password"));
  const std::vector<AccessProblem> problems = CheckAccess(http, {"app/lease", "app/ledger/"}, kCall);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_TRUE(Contains(problems[0].message, "wrong user name or password")) << problems[0].message;
  EXPECT_TRUE(problems[0].misconfigured());
}

TEST_F(EtcdLiveSecure, AnExpiredTokenIsRenewedAndAFailedRenewalIsNamed) {
  EnableAuthFor("app/");
  EtcdHttp http(Options({.user = "svc", .password = "svcpw"}));
  EtcdStoreClient store(http);
  EXPECT_EQ(store.Read("app/lease", kCall).status, core::StoreStatus::kOk);
  EXPECT_EQ(http.authentications(), 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(2'500));  // > --auth-token-ttl 1 unused
  EXPECT_EQ(store.Read("app/lease", kCall).status, core::StoreStatus::kOk);
  EXPECT_EQ(http.authentications(), 2);  // the rejected token was replaced, the call retried
  ASSERT_EQ(AsRoot("/v3/auth/user/changepw", {{"name", "svc"}, {"password", "changed"}}).verdict, Verdict::kResult);
  std::this_thread::sleep_for(std::chrono::milliseconds(2'500));
  const HttpResult result = http.Post("/v3/kv/range", RangeBody("app/lease"), kCall);
  EXPECT_EQ(result.cause, FailureCause::kWrongCredentials) << result.error;
  EXPECT_TRUE(Contains(result.error, "etcd rejected the auth token (expired or revoked), and re-authenticating failed"))
      << result.error;
  EXPECT_TRUE(Contains(result.error, "wrong user name or password")) << result.error;
  EXPECT_TRUE(reports_.Any("expired or revoked"));
}

TEST_F(EtcdLiveSecure, AMissingRoleIsNamedWithTheLeaseKeyOrTheLedgerPrefix) {
  EnableAuthFor("app/ledger/");  // the ledger only
  EtcdHttp http(Options({.user = "svc", .password = "svcpw"}));
  std::vector<AccessProblem> problems = CheckAccess(http, {"app/lease", "app/ledger/"}, kCall);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_TRUE(Contains(problems[0].message, "etcd user \"svc\" lacks permission to read the lease key \"app/lease\""))
      << problems[0].message;
  EXPECT_TRUE(Contains(problems[1].message, "lacks permission to write the lease key \"app/lease\"")) << problems[1].message;
  EtcdStoreClient store(http);
  EXPECT_EQ(store.Read("app/lease", kCall).status, core::StoreStatus::kUnavailable);
  EXPECT_TRUE(reports_.Any("lacks permission to use the lease key \"app/lease\""));
  // Another user whose role covers the lease key only.
  ASSERT_EQ(AsRoot("/v3/auth/role/add", {{"name", "lease-only"}}).verdict, Verdict::kResult);
  ASSERT_EQ(AsRoot("/v3/auth/role/grant", {{"name", "lease-only"},
                                           {"perm", {{"permType", "READWRITE"}, {"key", Base64Encode("app/lease")}}}})
                .verdict,
            Verdict::kResult);
  ASSERT_EQ(AsRoot("/v3/auth/user/add", {{"name", "lease"}, {"password", "pw"}}).verdict, Verdict::kResult);
  ASSERT_EQ(AsRoot("/v3/auth/user/grant", {{"user", "lease"}, {"role", "lease-only"}}).verdict, Verdict::kResult);
  EtcdHttp lease_only(Options({.user = "lease", .password = "pw"}));
  problems = CheckAccess(lease_only, {"app/lease", "app/ledger/"}, kCall);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_TRUE(Contains(problems[0].message, "lacks permission to read the ledger prefix \"app/ledger/\"")) << problems[0].message;
  EXPECT_TRUE(Contains(problems[1].message, "lacks permission to write the ledger prefix \"app/ledger/\"")) << problems[1].message;
  EtcdLedgerClient ledger(lease_only, {.prefix = "app/ledger/", .writer = "w"});
  EXPECT_EQ(ledger.LastAppliedWindow(kCall).status, core::LedgerStatus::kUnavailable);
  EXPECT_TRUE(reports_.Any("lacks permission to use the ledger prefix \"app/ledger/\""));
  // Both together: nothing missing.
  EtcdHttp svc_again(Options({.user = "root", .password = "rootpw"}));
  EXPECT_TRUE(CheckAccess(svc_again, {"app/lease", "app/ledger/"}, kCall).empty());
}

}  // namespace
}  // namespace leasesim::etcd

package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.akkaetcd.tls.TestCerts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client certificate's CN as the user (etcd 3.4's AuthInfoFromTLS), through Debian's etcdctl
 * against real etcd 3.4 and akka-etcd with {@code --client-cert-auth} and the same certificates:
 * a CN that is a user with a prefix permission is allowed inside it and denied outside; a CN no
 * user has is denied (and "user name not found" for an admin RPC); a token wins over the CN; the
 * JSON gateway refuses a CN certificate with etcd's 400. Every step must give the same stdout,
 * stderr and exit code on both.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CertUserDifferentialTest {
  @TempDir static Path tmp;
  private TestCerts ca;
  private TestCerts.Issued server;
  private TestCerts.Issued root;
  private TestCerts.Issued app;
  private TestCerts.Issued nobody;

  @BeforeAll
  void certificates() {
    ca = TestCerts.create(tmp.resolve("ca"));
    server = ca.server("server");
    root = ca.client("root");
    app = ca.client("app");
    nobody = ca.client("nobody");
  }

  /** One etcdctl step: the certificate it presents, its command, and whether it succeeds. */
  private record Step(String name, TestCerts.Issued cert, boolean succeeds, List<String> command) {}

  private List<Step> steps() {
    List<Step> s = new ArrayList<>();
    // Set up while auth is off (the CN is then nobody's concern).
    s.add(new Step("user add root", root, true, List.of("user", "add", "root:rootpw")));
    s.add(new Step("user add app", root, true, List.of("user", "add", "app:apppw")));
    s.add(new Step("role add app", root, true, List.of("role", "add", "app")));
    s.add(new Step("grant /app/ prefix", root, true,
        List.of("role", "grant-permission", "app", "readwrite", "/app/", "--prefix")));
    s.add(new Step("grant role", root, true, List.of("user", "grant-role", "app", "app")));
    s.add(new Step("put /other before auth", app, true, List.of("put", "/other", "o")));
    s.add(new Step("auth enable", root, true, List.of("auth", "enable")));
    // CN app: its prefix only.
    s.add(new Step("CN app put inside", app, true, List.of("put", "/app/x", "1")));
    s.add(new Step("CN app get inside", app, true, List.of("get", "/app/x")));
    s.add(new Step("CN app get prefix", app, true, List.of("get", "/app/", "--prefix")));
    s.add(new Step("CN app get outside", app, false, List.of("get", "/other")));
    s.add(new Step("CN app put outside", app, false, List.of("put", "/other", "p")));
    s.add(new Step("CN app delete outside", app, false, List.of("del", "/other")));
    s.add(new Step("CN app txn outside", app, false, List.of("txn")));
    s.add(new Step("CN app user list", app, false, List.of("user", "list")));
    s.add(new Step("CN app user get self", app, true, List.of("user", "get", "app")));
    // CN root: everything.
    s.add(new Step("CN root get outside", root, true, List.of("get", "/other")));
    s.add(new Step("CN root user list", root, true, List.of("user", "list")));
    // A CN no user has.
    s.add(new Step("CN nobody get", nobody, false, List.of("get", "/app/x")));
    s.add(new Step("CN nobody put", nobody, false, List.of("put", "/app/y", "1")));
    s.add(new Step("CN nobody user list", nobody, false, List.of("user", "list")));
    s.add(new Step("CN nobody role get", nobody, false, List.of("role", "get", "app")));
    // A token wins over the CN.
    s.add(new Step("CN nobody with --user app", nobody, true, List.of("--user", "app:apppw", "get", "/app/x")));
    s.add(new Step("CN app with --user root", app, true, List.of("--user", "root:rootpw", "get", "/other")));
    s.add(new Step("CN root auth disable", root, true, List.of("auth", "disable")));
    s.add(new Step("CN nobody get after disable", nobody, true, List.of("get", "/other")));
    return s;
  }

  @Test
  void certificateCommonNameActsAsTheUser() throws Exception {
    List<Step> steps = steps();
    List<List<Etcdctl.Result>> results = new ArrayList<>();
    ServerProcess.Tls tls = ServerProcess.Tls.clientCerts(ca, server, root);
    for (ServerProcess.Kind kind : List.of(ServerProcess.Kind.ETCD, ServerProcess.Kind.AKKA_ETCD)) {
      try (ServerProcess s = ServerProcess.start(kind, tls, List.of())) {
        List<Etcdctl.Result> r = new ArrayList<>();
        for (Step step : steps) {
          if (step.name().equals("CN root auth disable")) {
            r.add(gateway(s, app));
            r.add(gateway(s, nobody));
          }
          List<String> args = new ArrayList<>(ServerProcess.Tls.etcdctlAs(ca, step.cert()));
          args.addAll(step.command());
          if (step.name().equals("CN app txn outside")) {
            r.add(EtcdctlDifferentialTest.normalize(Etcdctl.run(s.endpoint(), "\nput /other t\n\n", args)));
          } else {
            r.add(EtcdctlDifferentialTest.normalize(Etcdctl.run(s.endpoint(), null, args)));
          }
        }
        results.add(r);
      }
    }
    List<String> names = new ArrayList<>();
    for (Step step : steps) {
      if (step.name().equals("CN root auth disable")) {
        names.add("gateway with CN app");
        names.add("gateway with CN nobody");
      }
      names.add(step.name());
    }
    List<String> mismatches = new ArrayList<>();
    int stepIndex = 0;
    for (int i = 0; i < names.size(); i++) {
      Etcdctl.Result etcd = results.get(0).get(i);
      Etcdctl.Result akka = results.get(1).get(i);
      boolean gateway = names.get(i).startsWith("gateway");
      boolean expected = gateway || steps.get(stepIndex++).succeeds();
      if (!etcd.equals(akka) || (etcd.exit() == 0) != expected) {
        mismatches.add(names.get(i) + "\n== etcd:\n" + etcd.all() + "== akka-etcd:\n" + akka.all());
      }
    }
    if (!mismatches.isEmpty()) {
      fail(mismatches.size() + " of " + names.size() + " steps differ:\n\n" + String.join("\n", mismatches));
    }
    List<Etcdctl.Result> akka = results.get(1);
    assertEquals("400\n", akka.get(names.indexOf("gateway with CN app")).stderr());
    assertEquals("Error: etcdserver: permission denied\n", akka.get(names.indexOf("CN app get outside")).stderr());
    assertEquals("Error: etcdserver: permission denied\n", akka.get(names.indexOf("CN nobody get")).stderr());
    assertEquals("Error: etcdserver: user name not found\n", akka.get(names.indexOf("CN nobody user list")).stderr());
  }

  /**
   * A JSON gateway Range with {@code cert}, by curl: the body as stdout, the HTTP status as stderr,
   * curl's exit code (0: an answer came back, whatever its status).
   */
  private Etcdctl.Result gateway(ServerProcess s, TestCerts.Issued cert) throws IOException, InterruptedException {
    Process p = new ProcessBuilder("curl", "-sS", "--max-time", "10", "--cacert", ca.caFile().toString(),
        "--cert", cert.cert().toString(), "--key", cert.key().toString(), "-X", "POST",
        "-d", "{\"key\":\"L2FwcC94\"}", "-o", "-", "-w", "\n%{http_code}", "https://" + s.endpoint() + "/v3/kv/range")
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException("curl did not finish");
    }
    int cut = out.lastIndexOf('\n');
    return new Etcdctl.Result(out.substring(0, cut), out.substring(cut + 1) + "\n", p.exitValue());
  }
}

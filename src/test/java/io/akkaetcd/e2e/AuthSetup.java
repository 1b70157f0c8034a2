package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

/** The auth tests' users, through etcdctl: root:pw (role root), alice:apw (role r1: readwrite a/ as a prefix), auth on. */
final class AuthSetup {
  private AuthSetup() {}

  static void enable(String endpoint) {
    for (String[] cmd : List.of(new String[] {"user", "add", "root:pw"}, new String[] {"user", "add", "alice:apw"},
        new String[] {"role", "add", "r1"}, new String[] {"role", "grant-permission", "r1", "readwrite", "a/", "--prefix"},
        new String[] {"user", "grant-role", "alice", "r1"}, new String[] {"auth", "enable"})) {
      Etcdctl.Result r = Etcdctl.run(endpoint, cmd);
      assertEquals(0, r.exit(), String.join(" ", cmd) + ":\n" + r.all());
    }
  }
}

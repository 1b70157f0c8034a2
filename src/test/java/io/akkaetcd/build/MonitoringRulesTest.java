package io.akkaetcd.build;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * deploy/monitoring passes promtool (Debian's prometheus package): the rules and the Prometheus
 * configuration check, and the unit tests of the rules pass: ours (no leader, high fsync, applier
 * lag fire on recorded series) and etcd's own test of its mixin rules.
 */
class MonitoringRulesTest {
  private static final Path KIT = Path.of("deploy/monitoring");
  private static final Path PROMTOOL = Path.of("/usr/bin/promtool");

  @Test
  void rulesAndConfigCheck() throws Exception {
    assumeTrue(Files.isExecutable(PROMTOOL), "promtool is not installed (Debian's prometheus)");
    String out = promtool("check", "rules", "etcd-alerts.yaml", "akka-etcd-alerts.yaml");
    assertTrue(out.contains("SUCCESS: 15 rules found"), out); // etcd's mixin, all of it
    assertTrue(out.contains("SUCCESS: 3 rules found"), out);
    promtool("check", "config", "prometheus.yml");
  }

  @Test
  void alertsFireOnRecordedSeries() throws Exception {
    assumeTrue(Files.isExecutable(PROMTOOL), "promtool is not installed (Debian's prometheus)");
    String ours = promtool("test", "rules", "alerts-test.yaml");
    assertTrue(ours.contains("SUCCESS"), ours);
    String etcds = promtool("test", "rules", "etcd-mixin-test.yaml");
    assertTrue(etcds.contains("SUCCESS"), etcds);
  }

  @Test
  void dashboardIsGrafanaJson() throws IOException {
    String json = Files.readString(KIT.resolve("dashboards/etcd.json"));
    assertTrue(json.contains("\"panels\"") && json.contains("etcd_server_has_leader"), "etcd's dashboard");
  }

  /** Runs promtool in deploy/monitoring; fails with its output unless it exits 0. */
  private static String promtool(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(PROMTOOL.toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(KIT.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "promtool did not finish");
    assertEquals(0, p.exitValue(), String.join(" ", cmd) + ":\n" + out);
    return out;
  }
}

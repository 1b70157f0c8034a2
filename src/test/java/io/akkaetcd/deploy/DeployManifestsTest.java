package io.akkaetcd.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import io.akkaetcd.server.Flags;
import io.akkaetcd.server.ServerConfig;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The container and Kubernetes kit under deploy/ (issue #32), checked as far as a machine without
 * Docker or Kubernetes can: every YAML file parses, and the names that must agree do (the
 * StatefulSet's pods, the headless Service, --initial-cluster, the PodDisruptionBudget's quorum,
 * the probes' paths, the ServiceMonitor's port). deploy/docker-dry-run covers the Dockerfile.
 */
class DeployManifestsTest {
  private static final Path DEPLOY = Path.of("deploy").toAbsolutePath();

  /** Every document of every deploy/k8s file, by kind (one of each). */
  private static Map<String, Map<String, Object>> k8s() throws IOException {
    Map<String, Map<String, Object>> byKind = new LinkedHashMap<>();
    for (Map<String, Object> doc : documents(DEPLOY.resolve("k8s"))) {
      assertTrue(doc.get("apiVersion") instanceof String, "no apiVersion: " + doc);
      assertEquals(null, byKind.put((String) doc.get("kind") + "/" + name(doc), doc), "twice: " + name(doc));
    }
    return byKind;
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> documents(Path dir) throws IOException {
    List<Map<String, Object>> docs = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList()) {
        try (Reader r = Files.newBufferedReader(f)) {
          new Yaml().loadAll(r).forEach(d -> docs.add((Map<String, Object>) d));
        }
      }
    }
    return docs;
  }

  @SuppressWarnings("unchecked")
  static <T> T at(Object node, String... path) {
    Object n = node;
    for (String key : path) {
      n = n instanceof List<?> l ? l.get(Integer.parseInt(key)) : ((Map<String, Object>) n).get(key);
      if (n == null) {
        throw new AssertionError("no " + String.join(".", path) + " (missing " + key + ")");
      }
    }
    return (T) n;
  }

  private static String name(Map<String, Object> doc) {
    return at(doc, "metadata", "name");
  }

  /** The container's environment as name to value (values from a fieldRef: its path). */
  private static Map<String, String> env(Map<String, Object> container) {
    Map<String, String> env = new LinkedHashMap<>();
    for (Map<String, Object> e : DeployManifestsTest.<List<Map<String, Object>>>at(container, "env")) {
      env.put((String) e.get("name"), e.containsKey("value") ? String.valueOf(e.get("value"))
          : "fieldRef:" + at(e, "valueFrom", "fieldRef", "fieldPath"));
    }
    return env;
  }

  @Test
  void statefulSetNamesFeedInitialCluster() throws Exception {
    Map<String, Map<String, Object>> k = k8s();
    Map<String, Object> sts = k.get("StatefulSet/akka-etcd");
    Map<String, Object> peers = k.get("Service/" + at(sts, "spec", "serviceName"));
    assertEquals("None", at(peers, "spec", "clusterIP"), "the peer Service is not headless");
    assertEquals(true, at(peers, "spec", "publishNotReadyAddresses"));
    Map<String, Object> labels = at(sts, "spec", "template", "metadata", "labels");
    assertEquals(labels, at(sts, "spec", "selector", "matchLabels"));
    assertEquals(labels, at(peers, "spec", "selector"));

    int replicas = at(sts, "spec", "replicas");
    assertEquals(3, replicas);
    assertEquals("Parallel", at(sts, "spec", "podManagementPolicy"), "members must start together");
    Map<String, String> env = env(at(sts, "spec", "template", "spec", "containers", "0"));
    String domain = "." + at(peers, "metadata", "name") + ".$(POD_NAMESPACE).svc";
    String expected = IntStream.range(0, replicas).mapToObj(i -> name(sts) + "-" + i)
        .map(pod -> pod + "=http://" + pod + domain + ":2380").collect(Collectors.joining(","));
    assertEquals(expected, env.get("ETCD_INITIAL_CLUSTER"));
    assertEquals("fieldRef:metadata.name", env.get("POD_NAME"));
    assertEquals("fieldRef:metadata.namespace", env.get("POD_NAMESPACE"));
    assertEquals("$(POD_NAME)", env.get("ETCD_NAME"));
    assertEquals("http://$(POD_NAME)" + domain + ":2380", env.get("ETCD_INITIAL_ADVERTISE_PEER_URLS"));
    assertEquals("http://$(POD_NAME)" + domain + ":2379", env.get("ETCD_ADVERTISE_CLIENT_URLS"));
    assertEquals("new", env.get("ETCD_INITIAL_CLUSTER_STATE"));
    // $(VAR) expands only a variable defined above it in the list.
    List<String> order = new ArrayList<>(env.keySet());
    assertTrue(order.indexOf("POD_NAME") < order.indexOf("ETCD_NAME")
        && order.indexOf("POD_NAMESPACE") < order.indexOf("ETCD_INITIAL_CLUSTER"), order.toString());
    // The environment as pod 0 in namespace "default" gets it, through the launcher's own parsing.
    Map<String, String> pod0 = new LinkedHashMap<>();
    env.forEach((n, v) -> pod0.put(n, v.replace("$(POD_NAME)", name(sts) + "-0").replace("$(POD_NAMESPACE)", "default")));
    Flags.Parsed parsed = Flags.parseAll(new String[0], pod0);
    assertEquals(List.of(), parsed.warnings(), "an ETCD_* variable that is no flag");
    ServerConfig config = ServerConfig.fromFlags(parsed.values());
    assertEquals(name(sts) + "-0", config.name());
  }

  @Test
  void probesVolumesAndUserMatchTheImage() throws IOException {
    Map<String, Object> sts = k8s().get("StatefulSet/akka-etcd");
    Map<String, Object> c = at(sts, "spec", "template", "spec", "containers", "0");
    assertEquals("/livez", at(c, "livenessProbe", "httpGet", "path"));
    assertEquals("/readyz", at(c, "readinessProbe", "httpGet", "path"));
    assertEquals("/livez", at(c, "startupProbe", "httpGet", "path"));
    List<Map<String, Object>> ports = at(c, "ports");
    Map<String, Integer> byName = ports.stream().collect(Collectors.toMap(p -> (String) p.get("name"), p -> (Integer) p.get("containerPort")));
    assertEquals(Map.of("client", 2379, "peer", 2380), byName);
    for (String probe : List.of("livenessProbe", "readinessProbe", "startupProbe")) {
      assertEquals("client", at(c, probe, "httpGet", "port"), probe);
    }
    String claim = at(sts, "spec", "volumeClaimTemplates", "0", "metadata", "name");
    assertEquals(claim, at(c, "volumeMounts", "0", "name"));
    String mount = at(c, "volumeMounts", "0", "mountPath");
    assertTrue(env(c).get("ETCD_DATA_DIR").startsWith(mount + "/"), "the data dir is not on the volume");
    assertEquals(List.of("ReadWriteOnce"), at(sts, "spec", "volumeClaimTemplates", "0", "spec", "accessModes"));
    // The image's user (deploy/Dockerfile's useradd --uid) owns the volume through fsGroup.
    String dockerfile = Files.readString(DEPLOY.resolve("Dockerfile"));
    assertTrue(dockerfile.contains("useradd --system --uid 2379 "), "the Dockerfile's uid changed");
    assertEquals(2379, (int) at(sts, "spec", "template", "spec", "securityContext", "runAsUser"));
    assertEquals(2379, (int) at(sts, "spec", "template", "spec", "securityContext", "fsGroup"));
    assertTrue(dockerfile.contains("\nENTRYPOINT [\"/usr/bin/akka-etcd\"]\n"));
    assertTrue(dockerfile.contains("\nFROM debian:bookworm-slim\n"));
  }

  @Test
  void disruptionBudgetKeepsAQuorum() throws IOException {
    Map<String, Map<String, Object>> k = k8s();
    Map<String, Object> sts = k.get("StatefulSet/akka-etcd");
    Map<String, Object> pdb = k.get("PodDisruptionBudget/akka-etcd");
    int replicas = at(sts, "spec", "replicas");
    assertEquals(replicas / 2 + 1, (int) at(pdb, "spec", "minAvailable"));
    assertEquals((Object) at(sts, "spec", "selector", "matchLabels"), at(pdb, "spec", "selector", "matchLabels"));
  }

  @Test
  void clientServiceAndServiceMonitorReachTheMembers() throws IOException {
    Map<String, Map<String, Object>> k = k8s();
    Map<String, Object> sts = k.get("StatefulSet/akka-etcd");
    Map<String, Object> client = k.get("Service/akka-etcd-client");
    assertFalse("None".equals(((Map<?, ?>) client.get("spec")).get("clusterIP")), "the client Service is headless");
    assertEquals((Object) at(sts, "spec", "selector", "matchLabels"), at(client, "spec", "selector"));
    assertEquals("client", at(client, "spec", "ports", "0", "targetPort"));
    assertEquals(2379, (int) at(client, "spec", "ports", "0", "port"));
    Map<String, Object> monitor = k.get("ServiceMonitor/akka-etcd");
    Map<String, Object> selector = at(monitor, "spec", "selector", "matchLabels");
    Map<String, Object> clientLabels = at(client, "metadata", "labels");
    assertTrue(clientLabels.entrySet().containsAll(selector.entrySet()), "the ServiceMonitor selects not the client Service");
    Map<String, Object> peerLabels = at(k.get("Service/akka-etcd-peer"), "metadata", "labels");
    assertFalse(peerLabels.entrySet().containsAll(selector.entrySet()), "the ServiceMonitor would scrape each member twice");
    assertEquals("client", at(monitor, "spec", "endpoints", "0", "port"));
    assertEquals("/metrics", at(monitor, "spec", "endpoints", "0", "path"));
  }

  @Test
  void composeMembersNameEachOtherInInitialCluster() throws IOException {
    Map<String, Object> compose;
    try (Reader r = Files.newBufferedReader(DEPLOY.resolve("docker-compose.yml"))) {
      compose = new Yaml().load(r);
    }
    Map<String, Map<String, Object>> services = at(compose, "services");
    assertEquals(List.of("infra1", "infra2", "infra3"), List.copyOf(services.keySet()));
    String cluster = services.keySet().stream().map(s -> s + "=http://" + s + ":2380").collect(Collectors.joining(","));
    for (Map.Entry<String, Map<String, Object>> s : services.entrySet()) {
      Map<String, Object> env = at(s.getValue(), "environment");
      assertEquals(s.getKey(), at(s.getValue(), "hostname"));
      assertEquals(s.getKey(), env.get("ETCD_NAME"));
      assertEquals(cluster, env.get("ETCD_INITIAL_CLUSTER"), s.getKey());
      assertEquals("http://" + s.getKey() + ":2380", env.get("ETCD_INITIAL_ADVERTISE_PEER_URLS"));
      assertEquals("http://" + s.getKey() + ":2379", env.get("ETCD_ADVERTISE_CLIENT_URLS"));
      assertEquals("akka-etcd-compose", env.get("ETCD_INITIAL_CLUSTER_TOKEN"));
      assertEquals("deploy/Dockerfile", at(s.getValue(), "build", "dockerfile"));
      assertEquals(List.of(s.getKey() + ":/var/lib/akka-etcd"), at(s.getValue(), "volumes"));
    }
  }
}

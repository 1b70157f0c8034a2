package io.akkaetcd.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.akkaetcd.server.Flags.FlagException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FlagsTest {
  private static ServerConfig config(Map<String, String> env, String... args) {
    return ServerConfig.fromFlags(Flags.parse(args, env));
  }

  /** Values etcd takes that mean something other than themselves, read as etcd reads them. */
  @Test
  void zeroAndNegativeValuesMeanWhatTheyMeanInEtcd() {
    ServerConfig c = ServerConfig.fromFlags(parsed(Map.of(), "--snapshot-count=0", "--max-txn-ops=0",
        "--max-request-bytes=0", "--quota-backend-bytes=-1", "--experimental-watch-progress-notify-interval=0",
        "--experimental-corrupt-check-time=-1s", "--auto-compaction-retention=-5s").values());
    assertEquals(ServerConfig.DEFAULT_SNAPSHOT_COUNT, c.snapshotCount(), "0: etcd's default");
    assertEquals(0, c.maxTxnOps(), "0 is a limit");
    assertEquals(0, c.maxRequestBytes(), "0 is a limit");
    assertEquals(-1, c.quotaBackendBytes(), "negative: no quota");
    assertEquals(Duration.ofMinutes(10), c.effectiveWatchProgressInterval(), "0 keeps etcd's 10 minutes");
    assertEquals(Duration.ofMillis(1), c.corruptCheck().interval(), "negative: back to back, as etcd's time.After");
    assertNull(c.autoCompactionPolicy(), "a negative period compacts nothing");

    ServerConfig fast = ServerConfig.fromFlags(parsed(Map.of(), "--experimental-watch-progress-notify-interval=10ms")
        .values());
    assertEquals(Duration.ofMillis(100), fast.effectiveWatchProgressInterval(), "etcd's minimum");
    ServerConfig hex = ServerConfig.fromFlags(parsed(Map.of(), "--max-txn-ops=0x1_0", "--max-request-bytes=0o20",
        "--quota-backend-bytes=-0x10").values());
    assertEquals(16, hex.maxTxnOps());
    assertEquals(16, hex.maxRequestBytes());
    assertEquals(-16, hex.quotaBackendBytes());
  }

  @Test
  void durationsAsGosTimeParseDuration() {
    assertEquals(Duration.ZERO, GoDuration.parse("0", "f"));
    assertEquals(Duration.ZERO, GoDuration.parse("-0", "f"));
    assertEquals(Duration.ofMinutes(-90), GoDuration.parse("-1.5h", "f"));
    assertEquals(Duration.ofMillis(1500), GoDuration.parse("+1s500ms", "f"));
    assertEquals("invalid --f \"-\"", assertThrows(FlagException.class, () -> GoDuration.parse("-", "f")).getMessage());
    assertEquals("invalid --f \"1\": not a duration",
        assertThrows(FlagException.class, () -> GoDuration.parse("1", "f")).getMessage());
  }

  @Test
  void autoCompactionRetentionIsHoursADurationOrRevisions() {
    assertNull(config(Map.of(), "--auto-compaction-retention=0").autoCompactionPolicy());
    assertNull(config(Map.of(), "--auto-compaction-mode=revision", "--auto-compaction-retention=0")
        .autoCompactionPolicy());
    assertEquals(Duration.ofHours(5), periodOf(config(Map.of(), "--auto-compaction-retention=5")));
    assertEquals(Duration.ofMinutes(90), periodOf(config(Map.of(), "--auto-compaction-retention=1h30m")));
    assertEquals(Duration.ofMillis(1500), periodOf(config(Map.of(), "--auto-compaction-retention=1.5s")));
    assertEquals("invalid auto-compaction-retention \"1h\" for revision mode", assertThrows(FlagException.class,
        () -> config(Map.of(), "--auto-compaction-mode=revision", "--auto-compaction-retention=1h")).getMessage());
  }

  private static Duration periodOf(ServerConfig c) {
    return ((io.akkaetcd.compactor.PeriodicPolicy) c.autoCompactionPolicy()).period();
  }

  @Test
  void noFlagsGiveEtcdDefaults() {
    ServerConfig c = config(Map.of());
    assertEquals("default", c.name());
    assertEquals(Path.of("default.etcd"), c.dataDir());
    assertEquals("http://localhost:2379", c.listenClientUrls().get(0).toString());
    assertEquals(1572864, c.maxRequestBytes());
    assertEquals(128, c.maxTxnOps());
    assertEquals(ServerConfig.DEFAULT_QUOTA_BYTES, c.quotaBackendBytes());
    assertEquals(Duration.ofMillis(100), c.heartbeatInterval());
    assertEquals(10, c.electionTicks());
    assertEquals(100000, c.snapshotCount());
  }

  @Test
  void bothFlagFormsAndDashesAreAccepted() {
    ServerConfig c = config(Map.of(), "--name=n1", "-max-txn-ops", "7", "--initial-cluster", "n1=http://127.0.0.1:9");
    assertEquals("n1", c.name());
    assertEquals(Path.of("n1.etcd"), c.dataDir());
    assertEquals(7, c.maxTxnOps());
  }

  @Test
  void environmentVariablesApplyAndFlagsWin() {
    Map<String, String> env = Map.of("ETCD_MAX_TXN_OPS", "9", "ETCD_DATA_DIR", "/tmp/x");
    assertEquals(9, config(env).maxTxnOps());
    assertEquals(Path.of("/tmp/x"), config(env).dataDir());
    assertEquals(3, config(env, "--max-txn-ops=3").maxTxnOps());
  }

  @Test
  void badFlagsAreRefusedWithEtcdsWords() {
    FlagException unknown = assertThrows(FlagException.class, () -> config(Map.of(), "--no-such-flag"));
    assertEquals("flag provided but not defined: -no-such-flag", unknown.getMessage());
    assertThrows(FlagException.class, () -> config(Map.of(), "--max-txn-ops"));
    assertThrows(FlagException.class, () -> config(Map.of(), "--max-txn-ops=x"));
    assertThrows(FlagException.class, () -> config(Map.of(), "--listen-client-urls=localhost:1"));
    assertThrows(FlagException.class, () -> config(Map.of(), "--election-timeout=100"));
    assertThrows(FlagException.class, () -> config(Map.of(), "--name=other"));
    assertThrows(FlagException.class, () -> config(Map.of(), "--auto-compaction-mode=weekly"));
    assertThrows(FlagException.class, () -> config(Map.of(), "--auto-compaction-retention=soon"));
    assertThrows(FlagException.class, () -> config(Map.of(), "stray"));
  }

  private static Flags.Parsed parsed(Map<String, String> env, String... args) {
    return Flags.parseAll(args, env);
  }

  private static FlagException refused(Map<String, String> env, String... args) {
    return assertThrows(FlagException.class, () -> Flags.parseAll(args, env));
  }

  /** etcd mixes http:// and https:// peer URLs; one Artery transport per member cannot, so it is refused. */
  @Test
  void mixedPeerSchemesAreRefused() {
    FlagException mixed = assertThrows(FlagException.class, () -> config(Map.of(), "--name=a",
        "--listen-peer-urls=https://127.0.0.1:1", "--initial-advertise-peer-urls=https://127.0.0.1:1",
        "--initial-cluster=a=https://127.0.0.1:1,b=http://127.0.0.1:2", "--peer-auto-tls"));
    assertEquals("akka-etcd: peer URLs mix http:// and https:// in --initial-cluster; one member"
        + " speaks one peer transport, so every peer URL must be http:// or every one https://", mixed.getMessage());
    config(Map.of(), "--name=a", "--listen-peer-urls=https://127.0.0.1:1",
        "--initial-advertise-peer-urls=https://127.0.0.1:1", "--initial-cluster=a=https://127.0.0.1:1,b=https://127.0.0.1:2",
        "--peer-auto-tls");
  }

  @Test
  void booleansTakeGoForms() {
    assertFalse(config(Map.of(), "--strict-reconfig-check=false").strictReconfigCheck());
    assertFalse(config(Map.of(), "-strict-reconfig-check=0").strictReconfigCheck());
    assertFalse(config(Map.of("ETCD_STRICT_RECONFIG_CHECK", "F")).strictReconfigCheck());
    assertTrue(config(Map.of()).strictReconfigCheck());
    assertTrue(config(Map.of(), "--strict-reconfig-check").strictReconfigCheck());
    assertEquals("true", parsed(Map.of(), "--pre-vote=TRUE").values().get("pre-vote"));
    FlagException bad = refused(Map.of(), "--strict-reconfig-check=yes");
    assertEquals("invalid boolean value \"yes\" for -strict-reconfig-check: parse error", bad.getMessage());
    assertEquals(2, bad.exitCode());
    // A boolean never takes the next argument: "false" ends the flags, as in Go.
    FlagException stray = refused(Map.of(), "--strict-reconfig-check", "false");
    assertEquals("'false' is not a valid flag", stray.getMessage());
    assertEquals(1, stray.exitCode());
  }

  @Test
  void helpIsAskedForWithHOrHelp() {
    assertTrue(parsed(Map.of(), "-h").help());
    assertTrue(parsed(Map.of(), "--name", "x", "--help").help());
    assertTrue(parsed(Map.of(), "-help=false").help());
    assertTrue(Flags.usage().contains("  --strict-reconfig-check 'true'\n"));
    assertTrue(Flags.usage().contains("Security:\n  --cert-file ''\n"));
  }

  @Test
  void everyFlagComesFromTheEnvironmentAndBadValuesThereAreRefusedWithTheirName() {
    for (Flag f : Flags.KNOWN) {
      assertEquals("ETCD_" + f.name().toUpperCase().replace('-', '_').replace('.', '_'), f.envName());
    }
    assertEquals("stdout", parsed(Map.of("ETCD_LOG_OUTPUTS", "stdout")).values().get("log-outputs"));
    FlagException e = refused(Map.of("ETCD_MAX_TXN_OPS", "x"));
    assertEquals("invalid value \"x\" for ETCD_MAX_TXN_OPS: parse error", e.getMessage());
    assertEquals(1, e.exitCode());
    assertEquals(List.of("unrecognized environment variable ETCD_NO_SUCH=1"),
        parsed(Map.of("ETCD_NO_SUCH", "1")).warnings());
  }

  @Test
  void featureFlagsAreTakenOffAndRefusedOnNamingTheFeature() {
    Flags.Parsed off = parsed(Map.of(), "--experimental-initial-corrupt-check=false", "--client-cert-auth=false",
        "--auth-token", "simple", "--metrics", "basic", "--cert-file=", "--listen-metrics-urls", "",
        "--enable-v2=false", "--experimental-corrupt-check-time=0s", "--proxy=off", "--enable-grpc-gateway=false",
        "--experimental-enable-lease-checkpoint=false", "--peer-auto-tls=false", "--force-new-cluster=false");
    assertEquals(List.of(), off.warnings());
    String[][] on = {
        {"--enable-v2", "etcd's v2 API"}, {"--proxy=on", "etcd's v2 proxy"}, {"--discovery=https://d/x", "discovery"},
        {"--force-new-cluster", "--force-new-cluster"}};
    for (String[] c : on) {
      FlagException e = refused(Map.of(), c[0]);
      assertEquals(FlagException.Kind.FATAL, e.kind(), c[0]);
      assertEquals(2, e.exitCode());
      assertTrue(e.getMessage().startsWith(c[0].replaceFirst("=.*", "") + "='") && e.getMessage().contains(c[1]),
          e.getMessage());
      assertFalse(e.report().strip().contains("\n"), "one line: " + e.report());
    }
  }

  @Test
  void corruptionCheckFlagsAreTaken() {
    assertEquals(ServerConfig.CorruptCheck.OFF, ServerConfig.fromFlags(parsed(Map.of()).values()).corruptCheck());
    ServerConfig c = ServerConfig.fromFlags(parsed(Map.of("ETCD_EXPERIMENTAL_CORRUPT_CHECK_TIME", "1m30s"),
        "--experimental-initial-corrupt-check").values());
    assertEquals(new ServerConfig.CorruptCheck(true, java.time.Duration.ofSeconds(90)), c.corruptCheck());
  }

  @Test
  void persistedLeaseCheckpointsNeedCheckpoints() {
    FlagException e = assertThrows(FlagException.class,
        () -> config(Map.of(), "--experimental-enable-lease-checkpoint-persist"));
    assertEquals("setting experimental-enable-lease-checkpoint-persist requires experimental-enable-lease-checkpoint",
        e.getMessage());
    ServerConfig c = config(Map.of(), "--experimental-enable-lease-checkpoint",
        "--experimental-enable-lease-checkpoint-persist");
    assertTrue(c.leaseCheckpoint() && c.leaseCheckpointPersist());
  }

  @Test
  void tlsFlagsAreTakenOnTheCommandLineAndAsEtcdVariables() {
    ServerConfig c = ServerConfig.fromFlags(parsed(Map.of("ETCD_CERT_FILE", "/c.pem", "ETCD_KEY_FILE", "/k.pem",
        "ETCD_TRUSTED_CA_FILE", "/ca.pem", "ETCD_PEER_AUTO_TLS", "true"), "--cipher-suites",
        "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "--peer-cert-allowed-cn", "member").values());
    assertEquals(Path.of("/c.pem"), c.clientTls().certFile());
    assertEquals(Path.of("/k.pem"), c.clientTls().keyFile());
    assertTrue(c.clientTls().requiresClientCert(), "a CA file alone asks for client certificates, as in 3.4");
    assertEquals(List.of("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"), c.clientTls().cipherSuites());
    assertTrue(c.peerTls().autoTls());
    assertEquals("member", c.peerTls().allowedCn());
    assertEquals(List.of("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"), c.peerTls().cipherSuites());
    assertEquals("unexpected TLS cipher suite \"TLS_NONE\"", assertThrows(RuntimeException.class,
        () -> ServerConfig.fromFlags(parsed(Map.of(), "--cipher-suites", "TLS_NONE").values())).getMessage());
    assertEquals(List.of("--experimental-peer-skip-client-san-verification='true' is accepted and has no effect:"
        + " akka-etcd never checks a peer client certificate's SANs against its address (docs/tls.md)"),
        parsed(Map.of(), "--experimental-peer-skip-client-san-verification").warnings());
  }

  @Test
  void flagsWithoutEffectHereWarnOnceEach() {
    Flags.Parsed p = parsed(Map.of(), "--backend-batch-interval=10ms", "--max-wals=5", "--enable-pprof",
        "--pre-vote=false", "--pre-vote=true", "--unsafe-no-fsync", "-v");
    assertEquals(List.of(
        "flag \"-v\" is no longer supported - ignoring.",
        "--backend-batch-interval='10ms' is accepted and has no effect: akka-etcd stores its data in LevelDB, not"
            + " bbolt; every applied batch is one LevelDB write",
        "--enable-pprof='true' is accepted and has no effect: there is no Go runtime to profile; use the JDK's"
            + " tools (jcmd, Flight Recorder)",
        "--unsafe-no-fsync='true' is accepted and has no effect: akka-etcd fsyncs every journal write regardless"),
        p.warnings());
  }

  @Test
  void loggingFlagsAreEtcds() {
    LogFlags zap = LogFlags.fromFlags(Flags.parse(new String[] {"--logger=zap", "--log-outputs=stdout,/tmp/x.log",
        "--log-level", "fatal"}, Map.of()));
    assertEquals(List.of("stdout", "/tmp/x.log"), zap.outputs());
    assertEquals("ERROR", zap.logbackLevel());
    assertEquals("DEBUG", LogFlags.fromFlags(Flags.parse(new String[] {"--debug"}, Map.of())).logbackLevel());
    assertEquals(List.of("stderr"),
        LogFlags.fromFlags(Flags.parse(new String[] {"--log-output=stderr"}, Map.of())).outputs());
    for (String level : List.of("debug", "info", "warn", "error", "dpanic", "panic", "fatal")) {
      LogFlags.fromFlags(Flags.parse(new String[] {"--log-level", level}, Map.of()));
    }
    FlagException unknownLevel = assertThrows(FlagException.class,
        () -> LogFlags.fromFlags(Flags.parse(new String[] {"--log-level=DEBUG"}, Map.of())));
    assertEquals(2, unknownLevel.exitCode());
    FlagException logger = assertThrows(FlagException.class,
        () -> LogFlags.fromFlags(Flags.parse(new String[] {"--logger=glog"}, Map.of())));
    assertEquals("unknown logger option \"glog\"", logger.getMessage());
    FlagException two = assertThrows(FlagException.class,
        () -> LogFlags.fromFlags(Flags.parse(new String[] {"--log-outputs=stderr,stdout"}, Map.of())));
    assertEquals("--logger=capnslog supports only 1 value in '--log-outputs', got [\"stderr\" \"stdout\"]",
        two.getMessage());
  }

  @Test
  void aConfigFileReplacesTheOtherFlagsAndTheEnvironment() throws java.io.IOException {
    java.nio.file.Path file = java.nio.file.Files.createTempFile("etcd", ".yml");
    java.nio.file.Files.writeString(file, """
        # etcd 3.4's configuration file: keys are the flags' names
        name: infra1
        listen-client-urls: http://127.0.0.1:12379
        advertise-client-urls: http://127.0.0.1:12379
        initial-advertise-peer-urls: http://127.0.0.1:12380
        initial-cluster: infra1=http://127.0.0.1:12380
        max-txn-ops: 64
        strict-reconfig-check: false
        experimental-watch-progress-notify-interval: 5000000000
        log-outputs: [stdout]
        client-transport-security:
          client-cert-auth: false
          cert-file:
        not-a-setting: 1
        """);
    Flags.Parsed p = parsed(Map.of("ETCD_MAX_TXN_OPS", "9", "ETCD_NAME", "other"), "--config-file", file.toString(),
        "--max-txn-ops", "3");
    ServerConfig c = ServerConfig.fromFlags(p.values());
    assertEquals("infra1", c.name());
    assertEquals(Path.of("infra1.etcd"), c.dataDir());
    assertEquals(64, c.maxTxnOps());
    assertFalse(c.strictReconfigCheck());
    assertEquals(Duration.ofSeconds(5), c.watchProgressNotifyInterval());
    assertEquals(List.of("stdout"), LogFlags.fromFlags(p.values()).outputs());
    assertEquals(List.of("--config-file " + file + ": not-a-setting is not an etcd setting; ignored",
        "loaded server configuration from " + file + "; other command-line flags and ETCD_* variables are ignored"),
        p.warnings());
    assertEquals(64, ServerConfig.fromFlags(parsed(Map.of("ETCD_CONFIG_FILE", file.toString())).values()).maxTxnOps());

    java.nio.file.Files.writeString(file, "peer-transport-security:\n  auto-tls: true\n");
    assertEquals("true", parsed(Map.of(), "--config-file=" + file).values().get("peer-auto-tls"));
    java.nio.file.Files.writeString(file, "max-txn-ops: many\n");
    assertEquals("--config-file " + file + ": invalid value \"many\" for max-txn-ops: parse error",
        refused(Map.of(), "--config-file=" + file).getMessage());
    java.nio.file.Files.delete(file);
    assertEquals(1, refused(Map.of(), "--config-file=" + file).exitCode());
  }
}

package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.akkaetcd.bbolt.BboltReader;
import io.akkaetcd.bbolt.SnapshotFraming;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.options.PutOption;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Backups as migrations (issue #30): a snapshot saved by etcdctl from one server, checked by
 * etcdctl and restored for the other, which then serves the same data at the same revisions. The
 * dataset has binary keys and values, a lease, an overwrite, a deletion and a compaction.
 */
class SnapshotMigrationTest {
  private static final ByteSequence BINARY = ByteSequence.from(new byte[] {(byte) 0xff, 0, 1, '\n'});
  private static final Pattern KVS = Pattern.compile("\"kvs\":\\[.*\\]");

  @TempDir Path dir;

  /**
   * From a fresh server at revision 1: a@2, a@3, b@4 with a lease, c@5, del c@6, binary@7, compact
   * at 3, a@8.
   */
  private static long dataset(Client client) throws Exception {
    KV kv = client.getKVClient();
    kv.put(utf8("a"), utf8("1")).get(10, TimeUnit.SECONDS);
    kv.put(utf8("a"), utf8("2")).get(10, TimeUnit.SECONDS);
    long lease = client.getLeaseClient().grant(600).get(10, TimeUnit.SECONDS).getID();
    kv.put(utf8("b"), utf8("leased"), PutOption.newBuilder().withLeaseId(lease).build()).get(10, TimeUnit.SECONDS);
    kv.put(utf8("c"), utf8("gone")).get(10, TimeUnit.SECONDS);
    kv.delete(utf8("c")).get(10, TimeUnit.SECONDS);
    kv.put(BINARY, BINARY).get(10, TimeUnit.SECONDS);
    kv.compact(3).get(10, TimeUnit.SECONDS);
    assertEquals(8, kv.put(utf8("a"), utf8("3")).get(10, TimeUnit.SECONDS).getHeader().getRevision());
    return lease;
  }

  private static ByteSequence utf8(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  private static Client client(ServerProcess server) {
    return Client.builder().endpoints(server.clientUrl()).build();
  }

  @ParameterizedTest
  @EnumSource(EndpointForm.class)
  void akkaEtcdSnapshotSavedUnderWritesRestoresIntoEtcd(EndpointForm form) throws Exception {
    Path snap = dir.resolve("akka.db");
    long lease;
    long revision;
    String expected;
    String hashAtSnapshot;
    try (ServerProcess akka = ServerProcess.start(ServerProcess.Kind.AKKA_ETCD, List.of());
         Client client = client(akka)) {
      lease = dataset(client);
      AtomicBoolean writing = new AtomicBoolean(true);
      AtomicInteger written = new AtomicInteger();
      CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
        try {
          while (writing.get()) {
            int i = written.get();
            client.getKVClient().put(utf8(String.format("w/%05d", i)), utf8("value " + i)).get(10, TimeUnit.SECONDS);
            written.incrementAndGet();
          }
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      awaitWrites(written, 20);
      Etcdctl.Result save = Etcdctl.run(form.of(akka), "snapshot", "save", snap.toString());
      int afterSave = written.get();
      awaitWrites(written, afterSave + 20); // the writes went on during and after the save
      writing.set(false);
      writer.get(30, TimeUnit.SECONDS);
      assertEquals(0, save.exit(), save.all());
      assertTrue(save.stdout().contains("Snapshot saved at " + snap), save.all());

      String status = Etcdctl.run(form.of(akka), "snapshot", "status", snap.toString(), "-w", "json").stdout();
      revision = jsonLong(status, "revision");
      // A prefix of the writes: w/0..w/(k-1) at revisions 9..8+k.
      assertTrue(revision > 8 + 20 && revision <= 8 + afterSave, status + " after " + afterSave + " writes");
      assertStatusMatchesFile(snap, status);
      // key rows: a@3, b@4, c@5, c@6 (tombstone), binary@7, a@8, the writes; meta: consistent
      // index and both compaction revisions; one lease, one member, the cluster version.
      assertEquals(6 + (revision - 8) + 3 + 1 + 1 + 1, jsonLong(status, "totalKey"), status);
      expected = kvs(Etcdctl.run(akka.endpoint(), "get", "", "--prefix", "--rev=" + revision, "-w", "json"));
      hashAtSnapshot = hashKv(akka, revision);
    }

    try (ServerProcess etcd = ServerProcess.unstarted(ServerProcess.Kind.ETCD, List.of())) {
      Etcdctl.Result restored = Etcdctl.run("127.0.0.1:1", restoreArgs(snap, etcd));
      assertEquals(0, restored.exit(), restored.all());
      etcd.start();
      Etcdctl.Result all = Etcdctl.run(etcd.endpoint(), "get", "", "--prefix", "-w", "json");
      assertEquals(revision, jsonLong(all.stdout(), "revision"), all.all());
      assertEquals(expected, kvs(all));
      // the same rows, so etcd's HashKV of the restored member is akka-etcd's of that revision
      assertEquals(hashAtSnapshot, hashKv(etcd, revision));
      assertTrue(expected.contains("\"lease\":" + lease), expected);
      String old = Etcdctl.run(etcd.endpoint(), "get", "a", "--rev=3", "-w", "json").stdout();
      assertTrue(old.contains("\"mod_revision\":3") && old.contains("\"version\":2"), old);
      Etcdctl.Result compacted = Etcdctl.run(etcd.endpoint(), "get", "a", "--rev=2");
      assertNotEquals(0, compacted.exit());
      assertTrue(compacted.stderr().contains("required revision has been compacted"), compacted.all());
      String deleted = Etcdctl.run(etcd.endpoint(), "get", "c", "--rev=5", "--print-value-only").stdout();
      assertEquals("gone\n", deleted);
      String ttl = Etcdctl.run(etcd.endpoint(), "lease", "timetolive", Long.toHexString(lease), "-w", "json").stdout();
      assertEquals(600, jsonLong(ttl, "granted-ttl"), ttl);
    }
  }

  @org.junit.jupiter.api.Test
  void etcdSnapshotRestoresIntoAkkaEtcd() throws Exception {
    Path snap = dir.resolve("etcd.db");
    SavedFromEtcd saved = saveFromEtcd(snap);
    for (String format : List.of("simple", "table", "json")) {
      Etcdctl.Result theirs = Etcdctl.run("127.0.0.1:1", "snapshot", "status", snap.toString(), "-w", format);
      Command ours = akkaEtcd("snapshot", "status", snap.toString(), "-w", format);
      assertEquals(0, ours.exit(), ours.output());
      assertEquals(theirs.stdout(), ours.stdout());
    }

    try (ServerProcess akka = ServerProcess.unstarted(ServerProcess.Kind.AKKA_ETCD, List.of())) {
      String[] restore = restoreArgs(snap, akka);
      Command restored = akkaEtcd(restore);
      assertEquals(0, restored.exit(), restored.output());
      Command again = akkaEtcd(restore);
      assertEquals(1, again.exit());
      assertTrue(again.output().contains("Error: data-dir \"" + akka.dataDir() + "\" exists"), again.output());
      akka.start();
      assertTrue(saved.expected().contains("\"lease\":" + saved.lease()), saved.expected());
      saved.assertServedBy(akka);
      String old = Etcdctl.run(akka.endpoint(), "get", "a", "--rev=3", "-w", "json").stdout();
      assertTrue(old.contains("\"mod_revision\":3") && old.contains("\"version\":2"), old);
      Etcdctl.Result compacted = Etcdctl.run(akka.endpoint(), "get", "a", "--rev=2");
      assertNotEquals(0, compacted.exit());
      assertTrue(compacted.stderr().contains("required revision has been compacted"), compacted.all());
      assertEquals("gone\n", Etcdctl.run(akka.endpoint(), "get", "c", "--rev=5", "--print-value-only").stdout());
    }
  }

  /**
   * An etcd user's restore runbook unchanged: `etcdctl snapshot restore` writes etcd's data
   * directory (bbolt file and WAL) and the member starts on it with the same flags (etcd's
   * TestIssue6361); the data, revision and leases are the snapshot's, and stay after a restart.
   */
  @org.junit.jupiter.api.Test
  void akkaEtcdStartsOnTheDataDirEtcdctlRestored() throws Exception {
    Path snap = dir.resolve("for-etcdctl-restore.db");
    SavedFromEtcd saved = saveFromEtcd(snap);
    try (ServerProcess akka = ServerProcess.unstarted(ServerProcess.Kind.AKKA_ETCD, List.of())) {
      Etcdctl.Result restored = Etcdctl.run("127.0.0.1:1", restoreArgs(snap, akka));
      assertEquals(0, restored.exit(), restored.all());
      assertTrue(java.nio.file.Files.exists(akka.dataDir().resolve("member/wal")), "etcd's WAL");
      akka.start();
      saved.assertServedBy(akka);
      assertTrue(java.nio.file.Files.exists(akka.dataDir().resolve("member/etcd-restored/snap/db")), "etcd's files kept");

      akka.stop();
      akka.start();
      Etcdctl.Result again = Etcdctl.run(akka.endpoint(), "get", "after", "--print-value-only");
      assertEquals("restore\n", again.stdout(), again.all());
    }
  }

  @org.junit.jupiter.api.Test
  void aDamagedSnapshotIsRefusedWithEtcdctlsError() throws Exception {
    Path snap = dir.resolve("etcd.db");
    try (ServerProcess etcd = ServerProcess.start(ServerProcess.Kind.ETCD, List.of())) {
      assertEquals(0, Etcdctl.run(etcd.endpoint(), "put", "k", "v").exit());
      assertEquals(0, Etcdctl.run(etcd.endpoint(), "snapshot", "save", snap.toString()).exit());
    }
    byte[] file = Files.readAllBytes(snap);
    file[file.length / 2] ^= 1; // inside the image, before the trailer
    Files.write(snap, file);
    Etcdctl.Result theirs = Etcdctl.run("127.0.0.1:1", "snapshot", "restore", snap.toString(),
        "--data-dir", dir.resolve("etcd-restored").toString());
    Command ours = akkaEtcd("snapshot", "restore", snap.toString(), "--data-dir", dir.resolve("akka-restored").toString());
    assertEquals(1, ours.exit(), ours.output());
    String error = theirs.stderr().lines().filter(l -> l.startsWith("Error: ")).findFirst().orElseThrow();
    assertTrue(error.startsWith("Error: expected sha256 ["), error);
    assertTrue(ours.output().contains(error), ours.output() + "\nvs " + error);
    assertTrue(!Files.exists(dir.resolve("akka-restored")), "a refused restore leaves no data dir");
    Command skipped = akkaEtcd("snapshot", "restore", snap.toString(), "--skip-hash-check",
        "--data-dir", dir.resolve("akka-skipped").toString());
    assertEquals(0, skipped.exit(), skipped.output());
  }

  /**
   * The auth store travels in the snapshot both ways (etcd's "auth", "authUsers", "authRoles"
   * buckets): users, roles, their grants and auth enabled, from akka-etcd into etcd and from etcd
   * into akka-etcd, each restored server answering as the saved one did.
   */
  @org.junit.jupiter.api.Test
  void authTravelsInSnapshotsBothWays() throws Exception {
    for (ServerProcess.Kind from : List.of(ServerProcess.Kind.AKKA_ETCD, ServerProcess.Kind.ETCD)) {
      Path snap = dir.resolve(from + "-auth.db");
      String expected;
      try (ServerProcess source = ServerProcess.start(from, List.of())) {
        AuthSetup.enable(source.endpoint());
        assertEquals(0, Etcdctl.run(source.endpoint(), "--user", "alice:apw", "put", "a/x", "1").exit());
        Etcdctl.Result save = Etcdctl.run(source.endpoint(), "--user", "root:pw", "snapshot", "save", snap.toString());
        assertEquals(0, save.exit(), save.all());
        expected = authView(source);
      }
      ServerProcess.Kind to = from == ServerProcess.Kind.ETCD ? ServerProcess.Kind.AKKA_ETCD : ServerProcess.Kind.ETCD;
      try (ServerProcess restoredInto = ServerProcess.unstarted(to, List.of())) {
        String[] restore = restoreArgs(snap, restoredInto);
        if (to == ServerProcess.Kind.ETCD) {
          Etcdctl.Result r = Etcdctl.run("127.0.0.1:1", restore);
          assertEquals(0, r.exit(), r.all());
        } else {
          Command r = akkaEtcd(restore);
          assertEquals(0, r.exit(), r.output());
        }
        restoredInto.start("--user", "root:pw");
        assertEquals(expected, authView(restoredInto), from + " -> " + to);
        Etcdctl.Result anonymous = Etcdctl.run(restoredInto.endpoint(), "get", "a/x");
        assertEquals("Error: etcdserver: user name is empty\n", anonymous.error(), anonymous.all());
        Etcdctl.Result wrong = Etcdctl.run(restoredInto.endpoint(), "--user", "alice:apw", "put", "b", "1");
        assertEquals("Error: etcdserver: permission denied\n", wrong.error(), wrong.all());
      }
    }
  }

  /** What {@link #saveFromEtcd} left: the dataset's lease, etcdctl's view of every key, the revision. */
  private record SavedFromEtcd(long lease, String expected, String revision) {
    /**
     * The member restored from the snapshot serves its keys at its revision and its lease, and a
     * write goes on from that revision (it puts key "after").
     */
    void assertServedBy(ServerProcess member) throws Exception {
      Etcdctl.Result all = Etcdctl.run(member.endpoint(), "get", "", "--prefix", "-w", "json");
      assertEquals(revision, Long.toString(jsonLong(all.stdout(), "revision")), all.all());
      assertEquals(expected, kvs(all));
      String ttl = Etcdctl.run(member.endpoint(), "lease", "timetolive", Long.toHexString(lease), "-w", "json").stdout();
      assertEquals(600, jsonLong(ttl, "granted-ttl"), ttl);
      String put = Etcdctl.run(member.endpoint(), "put", "after", "restore", "-w", "json").stdout();
      assertEquals(Long.parseLong(revision) + 1, jsonLong(put, "revision"), put);
    }
  }

  /** `snapshot restore SNAP` with the flags that make {@code member}'s data dir. */
  private static String[] restoreArgs(Path snap, ServerProcess member) {
    List<String> restore = new java.util.ArrayList<>(List.of("snapshot", "restore", snap.toString()));
    restore.addAll(member.restoreFlags());
    return restore.toArray(String[]::new);
  }

  /** The dataset written to a new etcd and saved by etcdctl into {@code snap}. */
  private static SavedFromEtcd saveFromEtcd(Path snap) throws Exception {
    try (ServerProcess etcd = ServerProcess.start(ServerProcess.Kind.ETCD, List.of());
         Client client = client(etcd)) {
      long lease = dataset(client);
      Etcdctl.Result save = Etcdctl.run(etcd.endpoint(), "snapshot", "save", snap.toString());
      assertEquals(0, save.exit(), save.all());
      Etcdctl.Result all = Etcdctl.run(etcd.endpoint(), "get", "", "--prefix", "-w", "json");
      return new SavedFromEtcd(lease, kvs(all), Long.toString(jsonLong(all.stdout(), "revision")));
    }
  }

  /** A damaged image fails `snapshot status` with etcdctl's lines from both tools (bbolt's check). */
  @org.junit.jupiter.api.Test
  void aDamagedSnapshotFailsStatusAsInEtcdctl() throws Exception {
    io.akkaetcd.bbolt.SnapshotImage image = io.akkaetcd.bbolt.SnapshotImage.write(dir.resolve("damaged.db"));
    byte[] whole = image.copy();
    Path file = image.save();
    assertEquals(0, akkaEtcd("snapshot", "status", file.toString()).exit(), "the whole image passes");
    List<Runnable> damages = List.of(
        () -> image.free(image.keyLeaf(1), image.keyLeaf(1)),
        () -> image.pointKeyEntry(1, image.keyLeaf(0)),
        () -> image.page(image.keyLeaf(0)).putLong(0, image.highWater() + 7),
        () -> {
          image.page(0).putInt(16, 0);
          image.page(1).putInt(16, 0);
        });
    for (Runnable damage : damages) {
      image.restore(whole);
      damage.run();
      image.save();
      Etcdctl.Result theirs = Etcdctl.run("127.0.0.1:1", "snapshot", "status", file.toString());
      Command ours = akkaEtcd("snapshot", "status", file.toString());
      assertEquals(1, theirs.exit(), theirs.all());
      assertEquals(theirs.exit(), ours.exit(), ours.output());
      assertEquals(theirs.stdout() + theirs.stderr(), ours.output());
    }
  }

  /** What etcdctl shows of the auth store: users, alice, role r1, and alice's read of a/x. */
  private static String authView(ServerProcess s) {
    StringBuilder out = new StringBuilder();
    for (String[] cmd : List.of(new String[] {"--user", "root:pw", "user", "list"},
        new String[] {"--user", "root:pw", "user", "get", "alice"}, new String[] {"--user", "root:pw", "role", "get", "r1"},
        new String[] {"--user", "alice:apw", "get", "a/x"})) {
      Etcdctl.Result r = Etcdctl.run(s.endpoint(), cmd);
      assertEquals(0, r.exit(), String.join(" ", cmd) + ":\n" + r.all());
      out.append(r.stdout());
    }
    return out.toString();
  }

  record Command(int exit, String stdout, String output) {}

  /** bin/akka-etcd's Main as a process on the test class path (stdout, and both streams merged). */
  private Command akkaEtcd(String... args) throws Exception {
    List<String> cmd = new java.util.ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), io.akkaetcd.etcdmain.Main.class.getName()));
    cmd.addAll(List.of(args));
    Path out = Files.createTempFile(dir, "out", ".txt");
    Path err = Files.createTempFile(dir, "err", ".txt");
    Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "akka-etcd " + List.of(args) + " did not finish in 60 s");
    String stdout = Files.readString(out);
    return new Command(p.exitValue(), stdout, stdout + Files.readString(err));
  }

  /** HashKV's number at {@code revision}, as etcdctl prints it ("endpoint, hash"). */
  private static String hashKv(ServerProcess member, long revision) {
    Etcdctl.Result r = Etcdctl.run(member.endpoint(), "endpoint", "hashkv", "--rev=" + revision);
    assertEquals(0, r.exit(), r.all());
    return r.stdout().substring(r.stdout().indexOf(", ") + 2).trim();
  }

  private static void awaitWrites(AtomicInteger written, int atLeast) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (written.get() < atLeast) {
      assertTrue(System.nanoTime() < deadline, "only " + written.get() + " writes in 30 s");
      Thread.onSpinWait();
    }
  }

  /** etcdctl's status figures, recomputed from the file: its hash, revision and pair count. */
  private static void assertStatusMatchesFile(Path snap, String status) throws Exception {
    byte[] file = Files.readAllBytes(snap);
    assertTrue(SnapshotFraming.hasHash(file.length), "size " + file.length);
    byte[] image = Arrays.copyOf(file, file.length - SnapshotFraming.HASH_SIZE);
    assertArrayEquals(MessageDigest.getInstance("SHA-256").digest(image),
        Arrays.copyOfRange(file, image.length, file.length));
    // clientv3/snapshot Status: crc32c over each bucket's name, then its keys and values.
    CRC32C crc = new CRC32C();
    long pairs = 0;
    long lastRevision = 0;
    try (BboltReader reader = BboltReader.open(snap)) {
      for (ByteString bucket : reader.bucketNames()) {
        crc.update(bucket.toByteArray());
        long[] counted = {0, 0};
        boolean key = bucket.toStringUtf8().equals("key");
        reader.forEach(bucket, (k, v) -> {
          crc.update(k.toByteArray());
          crc.update(v.toByteArray());
          counted[0]++;
          if (key) {
            counted[1] = ByteBuffer.wrap(k.toByteArray()).getLong();
          }
        });
        pairs += counted[0];
        lastRevision = key ? counted[1] : lastRevision;
      }
    }
    assertEquals(crc.getValue(), jsonLong(status, "hash"), status);
    assertEquals(pairs, jsonLong(status, "totalKey"), status);
    assertEquals(lastRevision, jsonLong(status, "revision"), status);
    assertEquals(image.length, jsonLong(status, "totalSize"), status);
  }

  static String kvs(Etcdctl.Result get) {
    assertEquals(0, get.exit(), get.all());
    Matcher m = KVS.matcher(get.stdout());
    assertTrue(m.find(), get.all());
    return m.group();
  }

  static long jsonLong(String json, String field) {
    Matcher m = Pattern.compile("\"" + field + "\":(-?\\d+)").matcher(json);
    assertTrue(m.find(), field + " in " + json);
    return Long.parseLong(m.group(1));
  }
}

package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.api.AuthGrpc;
import io.etcd.jetcd.api.AuthenticateRequest;
import io.etcd.jetcd.api.CampaignRequest;
import io.etcd.jetcd.api.ElectionGrpc;
import io.etcd.jetcd.api.LeaderKey;
import io.etcd.jetcd.api.LeaderRequest;
import io.etcd.jetcd.api.LeaseGrantRequest;
import io.etcd.jetcd.api.LeaseGrpc;
import io.etcd.jetcd.api.ProclaimRequest;
import io.etcd.jetcd.api.ResignRequest;
import io.etcd.jetcd.api.lock.LockGrpc;
import io.etcd.jetcd.api.lock.LockRequest;
import io.etcd.jetcd.api.lock.LockResponse;
import io.etcd.jetcd.api.lock.UnlockRequest;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Lock and Election with auth on, against etcd 3.4 and akka-etcd: both act with their caller's
 * identity (etcd's v3lock and v3election pass the caller's context to their client), so alice
 * (readwrite on {@code a/}) locks and campaigns under {@code a/}, and gets etcd's permission
 * errors elsewhere; bob (no role) and an anonymous caller get them everywhere. The transcripts
 * (lease ids and revisions normalised) must be equal, and each asserts its own expectations.
 */
class LockElectionAuthDifferentialTest {
  @Test
  void lockAndElectionActAsTheirCaller() throws Exception {
    List<String> expected = play(ServerProcess.Kind.ETCD);
    List<String> actual = play(ServerProcess.Kind.AKKA_ETCD);
    assertEquals(expected, actual);
  }

  private static List<String> play(ServerProcess.Kind kind) throws Exception {
    ServerProcess server = ServerProcess.start(kind, List.of());
    ManagedChannel channel = ManagedChannelBuilder.forTarget(server.endpoint()).usePlaintext().build();
    try {
      AuthSetup.enable(server.endpoint());
      Etcdctl.Result bob = Etcdctl.run(server.endpoint(), "--user=root:pw", "user", "add", "bob:bpw");
      assertEquals(0, bob.exit(), bob.all());
      Transcript t = new Transcript(channel);
      t.play();
      return t.lines;
    } finally {
      channel.shutdownNow();
      server.close();
    }
  }

  /** One play of the scenario against one server. */
  private static final class Transcript {
    final List<String> lines = new ArrayList<>();
    private final ManagedChannel channel;
    private final Map<Long, String> leases = new LinkedHashMap<>();
    private final Channel alice;
    private final Channel bob;
    private long base;

    Transcript(ManagedChannel channel) {
      this.channel = channel;
      this.alice = as("alice", "apw");
      this.bob = as("bob", "bpw");
    }

    void play() {
      long a = grant(alice);
      long b = grant(bob);
      LockResponse held = lock(alice).lock(LockRequest.newBuilder().setName(utf8("a/lk")).setLease(a).build());
      base = held.getHeader().getRevision();
      lines.add("alice locks " + key(held.getKey()));
      assertTrue(held.getKey().toStringUtf8().startsWith("a/lk/"), held.getKey().toStringUtf8());
      lines.add("bob unlocks alice's key: " + failure(() -> lock(bob).unlock(
          UnlockRequest.newBuilder().setKey(held.getKey()).build())));
      lines.add("alice unlocks at " + rev(lock(alice).unlock(UnlockRequest.newBuilder().setKey(held.getKey()).build())
          .getHeader().getRevision()));
      String outside = failure(() -> lock(alice).lock(LockRequest.newBuilder().setName(utf8("b/lk")).setLease(a).build()));
      assertTrue(outside.contains("permission denied"), outside);
      lines.add("alice locks b/lk: " + outside);
      String bobs = failure(() -> lock(bob).lock(LockRequest.newBuilder().setName(utf8("a/lk")).setLease(b).build()));
      assertTrue(bobs.contains("permission denied"), bobs);
      lines.add("bob locks a/lk: " + bobs);
      lines.add("anonymous locks a/lk: " + failure(() -> lock(channel).lock(
          LockRequest.newBuilder().setName(utf8("a/lk")).setLease(a).build())));
      LockResponse session = lock(alice).lock(LockRequest.newBuilder().setName(utf8("a/lz")).build());
      lines.add("alice locks a/lz under a session lease at " + rev(session.getHeader().getRevision()));
      lock(alice).unlock(UnlockRequest.newBuilder().setKey(session.getKey()).build());

      LeaderKey leader = election(alice).campaign(CampaignRequest.newBuilder().setName(utf8("a/el")).setLease(a)
          .setValue(utf8("v1")).build()).getLeader();
      lines.add("alice leads " + key(leader.getKey()) + " at " + rev(leader.getRev()));
      election(alice).proclaim(ProclaimRequest.newBuilder().setLeader(leader).setValue(utf8("v2")).build());
      lines.add("alice sees leader value " + election(alice).leader(LeaderRequest.newBuilder().setName(utf8("a/el"))
          .build()).getKv().getValue().toStringUtf8());
      String bobLeader = failure(() -> election(bob).leader(LeaderRequest.newBuilder().setName(utf8("a/el")).build()));
      assertTrue(bobLeader.contains("permission denied"), bobLeader);
      lines.add("bob asks the leader: " + bobLeader);
      lines.add("bob proclaims: " + failure(() -> election(bob).proclaim(
          ProclaimRequest.newBuilder().setLeader(leader).setValue(utf8("x")).build())));
      lines.add("bob resigns alice: " + failure(() -> election(bob).resign(
          ResignRequest.newBuilder().setLeader(leader).build())));
      lines.add("bob campaigns: " + failure(() -> election(bob).campaign(CampaignRequest.newBuilder()
          .setName(utf8("a/el")).setLease(b).setValue(utf8("b")).build())));
      lines.add("alice campaigns on b/el: " + failure(() -> election(alice).campaign(CampaignRequest.newBuilder()
          .setName(utf8("b/el")).setLease(a).setValue(utf8("b")).build())));
      election(alice).resign(ResignRequest.newBuilder().setLeader(leader).build());
      lines.add("after alice resigns: " + failure(() -> election(alice).leader(
          LeaderRequest.newBuilder().setName(utf8("a/el")).build())));
    }

    private Channel as(String user, String password) {
      String token = AuthGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
          .authenticate(AuthenticateRequest.newBuilder().setName(user).setPassword(password).build()).getToken();
      Metadata md = new Metadata();
      md.put(Metadata.Key.of("token", Metadata.ASCII_STRING_MARSHALLER), token);
      return ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(md));
    }

    private long grant(Channel who) {
      long id = LeaseGrpc.newBlockingStub(who).withDeadlineAfter(10, TimeUnit.SECONDS)
          .leaseGrant(LeaseGrantRequest.newBuilder().setTTL(60).build()).getID();
      leases.put(id, "L" + (leases.size() + 1));
      return id;
    }

    private static LockGrpc.LockBlockingStub lock(Channel who) {
      return LockGrpc.newBlockingStub(who).withDeadlineAfter(10, TimeUnit.SECONDS);
    }

    private static ElectionGrpc.ElectionBlockingStub election(Channel who) {
      return ElectionGrpc.newBlockingStub(who).withDeadlineAfter(10, TimeUnit.SECONDS);
    }

    private String key(ByteString key) {
      String k = key.toStringUtf8();
      for (Map.Entry<Long, String> e : leases.entrySet()) {
        k = k.replace(Long.toHexString(e.getKey()), e.getValue());
      }
      return k;
    }

    private String rev(long revision) {
      return "+" + (revision - base);
    }

    private static ByteString utf8(String s) {
      return ByteString.copyFromUtf8(s);
    }

    private static String failure(JetcdLockElectionDifferentialTest.Call call) {
      return JetcdLockElectionDifferentialTest.failure(call);
    }
  }
}

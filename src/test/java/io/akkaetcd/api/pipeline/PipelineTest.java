package io.akkaetcd.api.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.NotUsed;
import akka.actor.ActorSystem;
import akka.stream.javadsl.Sink;
import akka.stream.javadsl.Source;
import io.akkaetcd.errors.ErrorCode;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.errors.EtcdException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The pipeline's order (ready, learner, leader, authenticate, authorize, service) and its
 * short-circuits: a refusing stage ends the call with etcd's error before any later stage or the
 * service runs, and the observer sees each call once, with etcd's code.
 */
class PipelineTest {
  private static ActorSystem system;

  @BeforeAll
  static void start() {
    system = ActorSystem.create("pipeline-test");
  }

  @AfterAll
  static void stop() {
    system.terminate();
  }

  /** A member whose readiness, learner role and leader the test sets. */
  static final class Gate implements MemberGate {
    CompletableFuture<Void> ready = CompletableFuture.completedFuture(null);
    volatile boolean learner;
    volatile boolean leader = true;

    @Override
    public CompletionStage<Void> ready() {
      return ready;
    }

    @Override
    public boolean isLearner() {
      return learner;
    }

    @Override
    public boolean hasLeader() {
      return leader;
    }
  }

  /** A call with the given metadata. */
  static Call call(String method, Map<String, String> metadata) {
    return new Call(method, Transport.GRPC) {
      @Override
      public String metadata(String key) {
        return metadata.get(key);
      }

      @Override
      public InetSocketAddress peer() {
        return null;
      }
    };
  }

  private final List<String> log = new CopyOnWriteArrayList<>();
  private final Gate gate = new Gate();

  /** Plugins that log each step; the authenticator takes the token as the user. */
  private Plugins logging() {
    return new Plugins(
        call -> {
          log.add("authenticate " + call.method());
          String token = call.metadata("token");
          return token == null ? null : new io.akkaetcd.auth.AuthInfo(token, 1);
        },
        (call, request) -> log.add("authorize " + call.user() + " " + request),
        new CallObserver() {
          @Override
          public void started(Call call) {
            log.add("started " + call.method());
          }

          @Override
          public void finished(Call call, ErrorCode code, Throwable failure) {
            log.add("finished " + code + (failure == null ? "" : " " + failure.getMessage()));
          }
        });
  }

  private CompletionStage<String> service(String request) {
    log.add("service " + request);
    return CompletableFuture.completedFuture("done " + request);
  }

  private static <T> T await(CompletionStage<T> stage) throws Exception {
    return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /** A stream's end reaches the observer after its consumer sees it: wait for the log, with a deadline. */
  private void awaitLog(List<String> expected) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!log.equals(expected) && System.nanoTime() < deadline) {
      Thread.onSpinWait();
      Thread.sleep(1); // polling the condition, bounded by the deadline
    }
    assertEquals(expected, log);
  }

  private static EtcdError failure(CompletionStage<?> stage) {
    ExecutionException e = assertThrows(ExecutionException.class, () -> await(stage));
    assertTrue(e.getCause() instanceof EtcdException, e.toString());
    return ((EtcdException) e.getCause()).error();
  }

  @Test
  void aCallPassesEveryStageInOrderThenTheService() throws Exception {
    Pipeline p = Pipeline.standard(gate, logging());
    String result = await(p.unary(call(Methods.PUT, Map.of("token", "alice")), "put-a", this::service));
    assertEquals("done put-a", result);
    assertEquals(List.of("started /etcdserverpb.KV/Put", "authenticate /etcdserverpb.KV/Put", "authorize alice put-a",
        "service put-a", "finished OK"), log);
  }

  @Test
  void aCallWaitsUntilTheMemberIsReady() throws Exception {
    gate.ready = new CompletableFuture<>();
    Pipeline p = Pipeline.standard(gate, logging());
    CompletionStage<String> result = p.unary(call(Methods.RANGE, Map.of()), "get-a", this::service);
    assertEquals(List.of("started /etcdserverpb.KV/Range"), log, "nothing but the observer before ready");
    assertFalse(result.toCompletableFuture().isDone());
    gate.ready.complete(null);
    assertEquals("done get-a", await(result));
    assertEquals("finished OK", log.get(log.size() - 1));
  }

  @Test
  void aLearnerRefusesBeforeAuthAndTheService() throws Exception {
    gate.learner = true;
    Pipeline p = Pipeline.standard(gate, logging());
    assertSame(EtcdError.NOT_SUPPORTED_FOR_LEARNER,
        failure(p.unary(call(Methods.PUT, Map.of()), "put-a", this::service)));
    assertEquals(List.of("started /etcdserverpb.KV/Put",
        "finished UNAVAILABLE etcdserver: rpc not supported for learner"), log);
    // etcd's learners serve Range (serializable; the KV service checks that) and Status.
    assertEquals("done get-a", await(p.unary(call(Methods.RANGE, Map.of()), "get-a", this::service)));
    assertEquals("done status", await(p.unary(call(Methods.STATUS, Map.of()), "status", this::service)));
  }

  @Test
  void requireLeaderRefusesOnlyCallsThatAskForIt() throws Exception {
    gate.leader = false;
    Pipeline p = Pipeline.standard(gate, Plugins.NONE);
    assertSame(EtcdError.NO_LEADER,
        failure(p.unary(call(Methods.PUT, Map.of("hasleader", "true")), "put-a", this::service)));
    assertEquals(List.of(), log, "the service never ran");
    assertEquals("done put-b", await(p.unary(call(Methods.PUT, Map.of()), "put-b", this::service)));
  }

  @Test
  void aRefusingAuthenticatorStopsTheCallBeforeAuthorization() throws Exception {
    Plugins plugins = logging().withAuthenticator(call -> {
      throw EtcdError.INVALID_AUTH_TOKEN.exception();
    });
    Pipeline p = Pipeline.standard(gate, plugins);
    assertSame(EtcdError.INVALID_AUTH_TOKEN, failure(p.unary(call(Methods.PUT, Map.of()), "put-a", this::service)));
    assertEquals(List.of("started /etcdserverpb.KV/Put", "finished UNAUTHENTICATED etcdserver: invalid auth token"),
        log);
  }

  @Test
  void stagesRunInTheirOrderAndTheFirstRefusalWins() throws Exception {
    Stage first = (call, request) -> log.add("first");
    Stage refusing = (call, request) -> {
      log.add("refusing");
      throw EtcdError.PERMISSION_DENIED.exception();
    };
    Stage last = (call, request) -> log.add("last");
    Pipeline p = new Pipeline(gate, List.of(first, refusing, last), CallObserver.NONE);
    assertSame(EtcdError.PERMISSION_DENIED, failure(p.unary(call(Methods.TXN, Map.of()), "txn", this::service)));
    assertEquals(List.of("first", "refusing"), log);
  }

  @Test
  void theObserverSeesTheServicesFailureWithEtcdsCode() throws Exception {
    Pipeline p = Pipeline.standard(gate, logging());
    CompletionStage<String> compacted = p.unary(call(Methods.RANGE, Map.of()), "old",
        r -> CompletableFuture.failedFuture(EtcdError.COMPACTED.exception()));
    assertSame(EtcdError.COMPACTED, failure(compacted));
    assertEquals("finished OUT_OF_RANGE etcdserver: mvcc: required revision has been compacted",
        log.get(log.size() - 1));
    // A service that throws instead of failing its stage fails the call just the same.
    CompletionStage<String> thrown = p.unary(call(Methods.PUT, Map.of()), "bad", r -> {
      throw new IllegalStateException("boom");
    });
    assertThrows(ExecutionException.class, () -> await(thrown));
    assertEquals("finished UNKNOWN boom", log.get(log.size() - 1));
  }

  @Test
  void aStreamIsCheckedOnceAsItOpensAndObservedOnceAsItEnds() throws Exception {
    Pipeline p = Pipeline.standard(gate, logging());
    Source<String, NotUsed> requests = Source.from(List.of("w1", "w2"));
    List<String> out = await(p.stream(call(Methods.WATCH, Map.of("token", "bob")), requests,
        in -> in.map(r -> "created " + r)).runWith(Sink.seq(), system));
    assertEquals(List.of("created w1", "created w2"), out);
    awaitLog(List.of("started /etcdserverpb.Watch/Watch", "authenticate /etcdserverpb.Watch/Watch",
        "authorize bob null", "finished OK"));
  }

  @Test
  void aRefusedStreamFailsBeforeTheServiceSeesIt() throws Exception {
    gate.learner = true;
    Pipeline p = Pipeline.standard(gate, logging());
    Source<String, NotUsed> out = p.stream(call(Methods.LEASE_KEEP_ALIVE, Map.of()), Source.single("k"), in -> {
      log.add("service");
      return in;
    });
    assertSame(EtcdError.NOT_SUPPORTED_FOR_LEARNER, failure(out.runWith(Sink.seq(), system)));
    awaitLog(List.of("started /etcdserverpb.Lease/LeaseKeepAlive",
        "finished UNAVAILABLE etcdserver: rpc not supported for learner"));
  }
}

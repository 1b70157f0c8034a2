package io.akkaetcd.etcdmain;

import io.akkaetcd.os.SelfSignal;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * SIGINT and SIGTERM as etcd's osutil.HandleInterrupts: stop the member (its store closed), then
 * end the process by that same signal. A supervisor then sees what etcd gives it, "killed by
 * SIGTERM", which systemd counts as a clean stop; the JVM's own handling would exit with status
 * 143 (130), which systemd counts as a failure.
 */
final class StopSignals {
  private static final Logger log = LoggerFactory.getLogger(StopSignals.class);
  private static final List<String> NAMES = List.of("INT", "TERM");
  private static final long RAISE_WAIT_MILLIS = 5_000;

  private final Runnable stopMember;
  private final AtomicBoolean stopping = new AtomicBoolean();

  private StopSignals(Runnable stopMember) {
    this.stopMember = stopMember;
  }

  /** Takes over SIGINT and SIGTERM; {@code stopMember} returns once the member's store is closed. */
  static void install(Runnable stopMember) {
    StopSignals handler = new StopSignals(stopMember);
    for (String name : NAMES) {
      Signal.handle(new Signal(name), handler::received);
    }
  }

  /** On the JVM's signal thread: the stop runs on its own thread; a second signal adds nothing. */
  private void received(Signal signal) {
    if (stopping.compareAndSet(false, true)) {
      Thread stop = new Thread(() -> stopThenRaise(signal), "akka-etcd-stop-signal");
      stop.setDaemon(false); // the JVM must not exit (status 0) when main returns meanwhile
      stop.start();
    }
  }

  private void stopThenRaise(Signal signal) {
    // etcd's line, with Go's name for the signal
    log.info("received {} signal, shutting down...", signal.getName().equals("INT") ? "interrupt" : "terminated");
    stopMember.run();
    // The default action again, then the signal once more: the process ends by it.
    Signal.handle(signal, SignalHandler.SIG_DFL);
    if (SelfSignal.send(signal.getNumber())) {
      try {
        Thread.sleep(RAISE_WAIT_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    // Reached only if the signal did not end the process: the exit status the JVM would give.
    Runtime.getRuntime().halt(128 + signal.getNumber());
  }
}

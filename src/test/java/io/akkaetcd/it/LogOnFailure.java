package io.akkaetcd.it;

import java.util.Optional;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/** Prints the logs of the servers still running when a test fails. */
public final class LogOnFailure implements TestWatcher {
  @Override
  public void testFailed(ExtensionContext context, Throwable cause) {
    for (ServerProcess s : ServerProcess.LIVE) {
      System.err.println("===== log of " + s + " (test " + context.getDisplayName() + " failed) =====");
      System.err.println(s.logTail(30_000));
      System.err.println("===== end of log of " + s + " =====");
    }
  }

  @Override
  public void testAborted(ExtensionContext context, Throwable cause) {
    testFailed(context, cause);
  }

  @Override
  public void testDisabled(ExtensionContext context, Optional<String> reason) {}
}

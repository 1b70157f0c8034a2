package io.akkaetcd.testlog;

import java.io.PrintStream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.DynamicTestInvocationContext;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;

/**
 * Registered for every test (junit-platform.properties turns on extension auto-detection; see
 * META-INF/services): server logs are captured per test class ({@link CapturedLogs}) and printed
 * only when a test fails: what was logged while the class set up and during the failed test, and
 * the log of every server process attached then. A class whose setup or teardown fails prints
 * everything the class logged. A dynamic test ({@code @TestFactory}) has no callbacks of its own:
 * one that fails prints what was logged while it ran. Test classes run one at a time (no
 * parallel execution).
 */
public final class ServerLogsOnFailure
    implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback, AfterAllCallback, InvocationInterceptor {
  /** Where the running class's capture begins, and where its first test began (-1: none yet). */
  private static long classStart;
  private static long setupEnd = -1;
  /** Where the running test began. */
  private static long testStart;

  @Override
  public void beforeAll(ExtensionContext context) {
    CapturedLogs.begin();
    classStart = CapturedLogs.mark();
    setupEnd = -1;
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    testStart = CapturedLogs.mark();
    if (setupEnd < 0) {
      setupEnd = testStart;
    }
  }

  @Override
  public void afterEach(ExtensionContext context) {
    if (context.getExecutionException().isPresent()) {
      print(context.getDisplayName() + " in " + testClass(context) + " failed",
          CapturedLogs.between(classStart, setupEnd) + CapturedLogs.between(testStart, CapturedLogs.mark()));
    }
    CapturedLogs.dropReleased();
  }

  @Override
  public void interceptDynamicTest(Invocation<Void> invocation, DynamicTestInvocationContext invocationContext,
      ExtensionContext context) throws Throwable {
    long start = CapturedLogs.mark();
    try {
      invocation.proceed();
    } catch (Throwable t) {
      print(context.getDisplayName() + " in " + testClass(context) + " failed",
          CapturedLogs.between(classStart, setupEnd) + CapturedLogs.between(start, CapturedLogs.mark()));
      throw t;
    }
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (context.getExecutionException().isPresent()) {
      print(context.getDisplayName() + " failed", CapturedLogs.between(classStart, CapturedLogs.mark()));
    }
    CapturedLogs.end();
  }

  /** The test's class, from the nearest context that has one (a dynamic test's own has none). */
  private static String testClass(ExtensionContext context) {
    for (ExtensionContext c = context; c != null; c = c.getParent().orElse(null)) {
      if (c.getTestClass().isPresent()) {
        return c.getTestClass().get().getSimpleName();
      }
    }
    return "?";
  }

  private static void print(String what, String inProcess) {
    PrintStream out = System.out;
    out.println("==== " + what + ": server logs (in this JVM) ====");
    out.print(inProcess.isEmpty() ? "(none)\n" : inProcess);
    String processes = CapturedLogs.processLogs();
    if (!processes.isEmpty()) {
      out.println("==== " + what + ": server process logs ====");
      out.print(processes);
    }
    out.println("==== end of server logs ====");
    out.flush();
  }
}

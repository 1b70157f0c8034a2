package io.akkaetcd.os;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

@EnabledOnOs(OS.LINUX)
class BackgroundPriorityTest {
  @Test
  void lowersOnlyTheCallingThread() throws Exception {
    int before = niceOfThisThread();
    AtomicReference<Boolean> lowered = new AtomicReference<>();
    AtomicInteger after = new AtomicInteger();
    Thread background = new Thread(() -> {
      lowered.set(BackgroundPriority.lower());
      try {
        after.set(niceOfThisThread());
      } catch (Exception e) {
        after.set(Integer.MIN_VALUE);
      }
    });
    background.start();
    background.join();

    assertTrue(lowered.get(), "setpriority on this thread");
    assertEquals(Math.max(before, BackgroundPriority.NICE), after.get(), "the background thread's nice value");
    assertEquals(before, niceOfThisThread(), "the caller's thread keeps its own");
  }

  /** Field 19 of /proc/thread-self/stat; the fields after the command's closing parenthesis start at 3. */
  private static int niceOfThisThread() throws Exception {
    String stat = Files.readString(Path.of("/proc/thread-self/stat"));
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Integer.parseInt(fields[19 - 3]);
  }
}

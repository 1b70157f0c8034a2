package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Node clients from npm, installed once per set of pinned versions under target/, and a script of
 * src/test/resources run with them by node.
 */
final class NpmModules {
  private NpmModules() {}

  /**
   * The node_modules of {@code packages} ("name@version"), installed into {@code target/dirName}
   * unless every one of them is there already.
   */
  static synchronized Path install(String dirName, String... packages) throws IOException, InterruptedException {
    Path dir = Path.of("target", dirName).toAbsolutePath();
    Path modules = dir.resolve("node_modules");
    boolean present = true;
    for (String p : packages) {
      present &= Files.exists(modules.resolve(p.substring(0, p.lastIndexOf('@'))).resolve("package.json"));
    }
    if (!present) {
      Files.createDirectories(dir);
      List<String> command = new ArrayList<>(
          List.of("npm", "install", "--no-audit", "--no-fund", "--prefix", dir.toString()));
      command.addAll(List.of(packages));
      Process npm = new ProcessBuilder(command).redirectErrorStream(true).start();
      npm.getOutputStream().close();
      String log = new String(npm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(npm.waitFor(300, TimeUnit.SECONDS) && npm.exitValue() == 0, "npm install failed:\n" + log);
    }
    return modules;
  }

  /**
   * What node printed on stdout running the script (under src/test/resources) with {@code args};
   * fails, with its stderr too, unless it exits 0 within the time.
   */
  static String run(Path modules, String script, int seconds, List<String> args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("node", ChildScript.resource(script)));
    command.addAll(args);
    return ChildScript.run(command, Map.of("NODE_PATH", modules.toString()), seconds);
  }
}

package io.akkaetcd.it;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A differential script: etcdctl invocations played on two fresh servers.
 *
 * <pre>
 * # comment                          blank lines and comments are skipped
 * &#64;flags --max-txn-ops 3             etcd flags for both servers (before the first command)
 * put foo "a value"                  one etcdctl invocation; "..." and '...' quote
 * txn -i &lt;&lt;EOF                      stdin: the lines up to the marker line, each with "\n"
 * value("foo") = "a value"
 * EOF
 * lease grant 60 =&gt; L 'lease ([0-9a-f]+) granted'    capture group 1 of stdout as ${L}
 * put k v --lease=${L}               ${L}: this server's capture; ${L_DEC}: it as a decimal
 * put big {{repeat:x:5000}}          a generated argument (also inside stdin)
 * </pre>
 */
record DiffScript(String name, List<String> flags, List<Step> steps) {

  /** One invocation; {@code stdin} is null when none is given. */
  record Step(int line, List<String> args, String stdin, String captureName, Pattern capture) {
    String display() {
      return "line " + line + ": etcdctl " + String.join(" ", args)
          + (stdin == null ? "" : " <<< " + stdin.replace("\n", "\\n"));
    }
  }

  private static final Pattern REPEAT = Pattern.compile("\\{\\{repeat:(.):(\\d+)}}");
  private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)}");

  static DiffScript parse(String name, String text) {
    List<String> lines = text.lines().toList();
    List<String> flags = new ArrayList<>();
    List<Step> steps = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      int lineNo = i + 1;
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      if (line.startsWith("@flags")) {
        if (!steps.isEmpty()) {
          throw new IllegalArgumentException(name + ":" + lineNo + ": @flags after a command");
        }
        flags.addAll(tokenize(line.substring("@flags".length()), name, lineNo));
        continue;
      }
      List<String> tokens = new ArrayList<>(tokenize(line, name, lineNo));
      String stdin = null;
      String last = tokens.get(tokens.size() - 1);
      if (last.startsWith("<<") && last.length() > 2) {
        String marker = last.substring(2);
        tokens.remove(tokens.size() - 1);
        StringBuilder body = new StringBuilder();
        i++;
        while (i < lines.size() && !lines.get(i).strip().equals(marker)) {
          body.append(lines.get(i)).append('\n');
          i++;
        }
        if (i == lines.size()) {
          throw new IllegalArgumentException(name + ":" + lineNo + ": no closing " + marker);
        }
        stdin = body.toString();
      }
      String captureName = null;
      Pattern capture = null;
      int arrow = tokens.indexOf("=>");
      if (arrow >= 0) {
        if (arrow != tokens.size() - 3) {
          throw new IllegalArgumentException(name + ":" + lineNo + ": use => NAME 'regex'");
        }
        captureName = tokens.get(arrow + 1);
        capture = Pattern.compile(tokens.get(arrow + 2));
        tokens.subList(arrow, tokens.size()).clear();
      }
      steps.add(new Step(lineNo, List.copyOf(tokens), stdin, captureName, capture));
    }
    return new DiffScript(name, List.copyOf(flags), List.copyOf(steps));
  }

  /** Shell-like words: whitespace separates; "..." (with \ escapes) and '...' quote. */
  static List<String> tokenize(String line, String name, int lineNo) {
    List<String> tokens = new ArrayList<>();
    StringBuilder current = null;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (Character.isWhitespace(c)) {
        if (current != null) {
          tokens.add(current.toString());
          current = null;
        }
        continue;
      }
      if (current == null) {
        current = new StringBuilder();
      }
      if (c == '\'') {
        int end = line.indexOf('\'', i + 1);
        if (end < 0) {
          throw new IllegalArgumentException(name + ":" + lineNo + ": unclosed '");
        }
        current.append(line, i + 1, end);
        i = end;
      } else if (c == '"') {
        i++;
        while (i < line.length() && line.charAt(i) != '"') {
          char d = line.charAt(i);
          if (d == '\\' && i + 1 < line.length()) {
            char e = line.charAt(++i);
            current.append(e == 'n' ? '\n' : e == 't' ? '\t' : e);
          } else {
            current.append(d);
          }
          i++;
        }
        if (i == line.length()) {
          throw new IllegalArgumentException(name + ":" + lineNo + ": unclosed \"");
        }
      } else {
        current.append(c);
      }
    }
    if (current != null) {
      tokens.add(current.toString());
    }
    return tokens;
  }

  /**
   * What one server has seen while a script plays: its captures, and how to expand arguments
   * and normalize output for it.
   */
  static final class Session {
    private final ServerUnderTest server;
    private final Etcdctl etcdctl;
    private final Map<String, String> variables = new HashMap<>();

    Session(ServerUnderTest server) {
      this.server = server;
      this.etcdctl = new Etcdctl(server);
    }

    /** Runs a step with its arguments expanded; records a capture from stdout. */
    Etcdctl.Result play(Step step) {
      List<String> args = step.args().stream().map(this::expand).toList();
      String stdin = step.stdin() == null ? null : expand(step.stdin());
      Etcdctl.Result result = etcdctl.run(args, stdin, Etcdctl.DEFAULT_TIMEOUT);
      if (step.capture() != null) {
        Matcher m = step.capture().matcher(result.stdout());
        if (m.find()) {
          String value = m.groupCount() >= 1 ? m.group(1) : m.group();
          variables.put(step.captureName(), value);
          try {
            variables.put(step.captureName() + "_DEC",
                Long.toUnsignedString(Long.parseUnsignedLong(value, 16)));
          } catch (NumberFormatException notHex) {
            // only hex captures (lease ids) get a decimal twin
          }
        }
      }
      return result;
    }

    String expand(String s) {
      Matcher repeat = REPEAT.matcher(s);
      StringBuilder out = new StringBuilder();
      while (repeat.find()) {
        repeat.appendReplacement(out, Matcher.quoteReplacement(
            repeat.group(1).repeat(Integer.parseInt(repeat.group(2)))));
      }
      repeat.appendTail(out);
      Matcher var = VARIABLE.matcher(out.toString());
      StringBuilder out2 = new StringBuilder();
      while (var.find()) {
        String value = variables.get(var.group(1));
        if (value == null) {
          throw new IllegalStateException("${" + var.group(1) + "} was not captured on "
              + server.label());
        }
        var.appendReplacement(out2, Matcher.quoteReplacement(value));
      }
      var.appendTail(out2);
      return out2.toString();
    }

    /**
     * Removes what legitimately differs between two fresh single-member clusters: cluster id,
     * member id and raft term in headers (json and fields output), captured ids, and in
     * etcdctl's own warning lines the timestamp, client id and endpoint address.
     */
    String normalize(String text) {
      String s = text
          .replaceAll("\"cluster_id\":\\d+", "\"cluster_id\":<cluster_id>")
          .replaceAll("\"member_id\":\\d+", "\"member_id\":<member_id>")
          .replaceAll("\"raft_term\":\\d+", "\"raft_term\":<raft_term>")
          .replaceAll("\"ClusterID\" : \\d+", "\"ClusterID\" : <cluster_id>")
          .replaceAll("\"MemberID\" : \\d+", "\"MemberID\" : <member_id>")
          .replaceAll("\"RaftTerm\" : \\d+", "\"RaftTerm\" : <raft_term>")
          .replaceAll("\"ts\":\"[^\"]*\"", "\"ts\":\"<ts>\"")
          .replaceAll("client-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
              "client-<uuid>")
          .replace(server.endpoint(), "<endpoint>");
      // longest first, so a decimal twin is not cut by its shorter hex form
      List<Map.Entry<String, String>> vars = new ArrayList<>(variables.entrySet());
      vars.sort((a, b) -> b.getValue().length() - a.getValue().length());
      for (Map.Entry<String, String> v : vars) {
        if (v.getValue().length() >= 6) {
          s = s.replace(v.getValue(), "${" + v.getKey() + "}");
        }
      }
      return s;
    }
  }
}

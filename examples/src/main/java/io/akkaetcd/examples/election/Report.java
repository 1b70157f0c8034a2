package io.akkaetcd.examples.election;

/**
 * What a node tells on standard output, one line per event, for a person watching and for the
 * example's test, which reads these lines and nothing else of the output (logs go to stderr):
 * <pre>
 * READY &lt;name&gt;                      its member serves clients
 * LEADER &lt;name&gt; &lt;term&gt;              it won the election; term: the election key's create revision
 * FOLLOWER &lt;name&gt; &lt;leader&gt; &lt;term&gt;    it lost to leader, who holds the key since term
 * RESIGNED &lt;name&gt; &lt;term&gt;            it no longer leads (its key is gone or its lease lost)
 * TICK &lt;name&gt; &lt;term&gt; &lt;n&gt;            the job, as leader in term, counted to n
 * CONFIG &lt;key&gt;=&lt;value&gt;              a configuration key it applied
 * CONFIG-DELETED &lt;key&gt;               a configuration key deleted
 * </pre>
 */
final class Report {
  private Report() {}

  static void ready(String name) {
    line("READY " + name);
  }

  static void leader(String name, long term) {
    line("LEADER " + name + " " + term);
  }

  static void follower(String name, String leader, long term) {
    line("FOLLOWER " + name + " " + leader + " " + term);
  }

  static void resigned(String name, long term) {
    line("RESIGNED " + name + " " + term);
  }

  static void tick(String name, long term, long n) {
    line("TICK " + name + " " + term + " " + n);
  }

  static void config(String key, String value) {
    line("CONFIG " + key + "=" + value);
  }

  static void configDeleted(String key) {
    line("CONFIG-DELETED " + key);
  }

  private static synchronized void line(String line) {
    System.out.println(line);
    System.out.flush();
  }
}

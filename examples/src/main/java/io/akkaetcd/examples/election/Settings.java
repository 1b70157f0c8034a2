package io.akkaetcd.examples.election;

import com.typesafe.config.Config;
import java.time.Duration;

/**
 * The example's settings ({@code election-example} in application.conf) and this node's name,
 * which is its member's.
 *
 * @param leaseTtl the campaign lease's TTL; etcd's minimum is ceil(1.5 x election timeout) seconds
 */
record Settings(String name, String electionKey, String counterKey, String configPrefix, Duration leaseTtl,
    Duration tickInterval) {

  static Settings from(Config c, String name) {
    return new Settings(name, c.getString("election-key"), c.getString("counter-key"),
        c.getString("config-prefix"), c.getDuration("lease-ttl"), c.getDuration("tick-interval"));
  }

  /** Keep-alives go out three times per TTL, as etcd's clientv3 sends them. */
  Duration keepAliveInterval() {
    return leaseTtl.dividedBy(3);
  }
}

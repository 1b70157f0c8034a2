package io.akkaetcd.cluster;

import io.akkaetcd.errors.StartupException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A member's identity (its id and its cluster's id) as fixed when its data directory was created.
 * etcd keeps these in its WAL and ignores the bootstrap flags on a restart; likewise, a restarted
 * member here keeps the identity of its data directory even if --initial-advertise-peer-urls or
 * --initial-cluster-token changed, since its raft log belongs to that identity.
 */
public final class MemberIdentity {
  private static final Logger log = LoggerFactory.getLogger(MemberIdentity.class);
  private static final String FILE = "identity";

  private MemberIdentity() {}

  /** The bootstrapped members, with this member's and the cluster's id as first recorded in {@code memberDir}. */
  public static ClusterMembers loadOrRecord(Path memberDir, ClusterMembers bootstrapped) {
    Path file = memberDir.resolve(FILE);
    try {
      if (!Files.exists(file)) {
        DurableFiles.replaceText(memberDir, FILE, List.of("member " + bootstrapped.self(),
            "cluster " + Long.toHexString(bootstrapped.clusterId())));
        return bootstrapped;
      }
      long member = 0;
      long cluster = 0;
      for (String line : Files.readAllLines(file, StandardCharsets.US_ASCII)) {
        String[] parts = line.trim().split(" ");
        if (parts.length == 2 && parts[0].equals("member")) {
          member = Long.parseUnsignedLong(parts[1], 16);
        } else if (parts.length == 2 && parts[0].equals("cluster")) {
          cluster = Long.parseUnsignedLong(parts[1], 16);
        } else {
          throw damaged(file);
        }
      }
      if (member == 0 || cluster == 0) {
        throw damaged(file);
      }
      if (member == bootstrapped.self().value() && cluster == bootstrapped.clusterId()) {
        return bootstrapped;
      }
      log.warn("data dir belongs to member {} of cluster {}; keeping that identity and ignoring the"
          + " bootstrap flags (which give {} of {})", Long.toHexString(member), Long.toHexString(cluster),
          bootstrapped.self(), Long.toHexString(bootstrapped.clusterId()));
      MemberId self = new MemberId(member);
      List<ClusterMembers.Member> members = new ArrayList<>();
      for (ClusterMembers.Member m : bootstrapped.members()) {
        members.add(m.id().equals(bootstrapped.self())
            ? new ClusterMembers.Member(self, m.name(), m.peerUrls(), m.clientUrls(), m.learner()) : m);
      }
      return new ClusterMembers(cluster, self, List.copyOf(members));
    } catch (NumberFormatException | java.nio.charset.MalformedInputException e) {
      throw damaged(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read or record the member identity in " + memberDir, e);
    }
  }

  private static StartupException damaged(Path file) {
    return StartupException.damaged(file, "it must hold two lines, \"member <hex id>\" and \"cluster <hex id>\"");
  }
}

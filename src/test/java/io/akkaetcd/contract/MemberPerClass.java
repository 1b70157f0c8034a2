package io.akkaetcd.contract;

import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * A contract test class: one member, started with the class's flags before its first test and
 * shared by all of them over both transports (each test keeps to its own keys), stopped after.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class MemberPerClass {
  private final String[] flags;
  ContractMember member;

  MemberPerClass(String... flags) {
    this.flags = flags.clone();
  }

  @BeforeAll
  void startMember() {
    member = new ContractMember(flags);
  }

  @AfterAll
  void stopMember() throws Exception {
    if (member != null) {
      member.close();
    }
  }

  /** The transports every {@link OverEachTransport} test runs over. */
  List<Transport> transports() {
    return member.transports();
  }
}

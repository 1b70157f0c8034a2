package io.akkaetcd.errors;

/**
 * The one catalog of errors a client can see: etcd v3.5's gRPC code and exact text for each
 * (api/v3rpc/rpctypes/error.go). Clients match on the text, so it must not change by a byte.
 * A leaf: every layer may raise these; only the API layer maps them to a transport's status.
 * Only {@link ErrorCode#UNAVAILABLE} is retried by etcd's clients: it is for leader loss and
 * timeouts, never for bad input.
 */
public enum EtcdError {
  EMPTY_KEY(ErrorCode.INVALID_ARGUMENT, "etcdserver: key is not provided"),
  KEY_NOT_FOUND(ErrorCode.INVALID_ARGUMENT, "etcdserver: key not found"),
  VALUE_PROVIDED(ErrorCode.INVALID_ARGUMENT, "etcdserver: value is provided"),
  LEASE_PROVIDED(ErrorCode.INVALID_ARGUMENT, "etcdserver: lease is provided"),
  TOO_MANY_OPS(ErrorCode.INVALID_ARGUMENT, "etcdserver: too many operations in txn request"),
  DUPLICATE_KEY(ErrorCode.INVALID_ARGUMENT, "etcdserver: duplicate key given in txn request"),
  REQUEST_TOO_LARGE(ErrorCode.INVALID_ARGUMENT, "etcdserver: request is too large"),
  COMPACTED(ErrorCode.OUT_OF_RANGE, "etcdserver: mvcc: required revision has been compacted"),
  FUTURE_REV(ErrorCode.OUT_OF_RANGE, "etcdserver: mvcc: required revision is a future revision"),
  NO_SPACE(ErrorCode.RESOURCE_EXHAUSTED, "etcdserver: mvcc: database space exceeded"),
  CORRUPT(ErrorCode.DATA_LOSS, "etcdserver: corrupt cluster"),
  TOO_MANY_REQUESTS(ErrorCode.RESOURCE_EXHAUSTED, "etcdserver: too many requests"),

  LEASE_NOT_FOUND(ErrorCode.NOT_FOUND, "etcdserver: requested lease not found"),
  LEASE_EXIST(ErrorCode.FAILED_PRECONDITION, "etcdserver: lease already exists"),
  LEASE_TTL_TOO_LARGE(ErrorCode.OUT_OF_RANGE, "etcdserver: too large lease TTL"),

  WATCH_CANCELED(ErrorCode.CANCELLED, "etcdserver: watch canceled"),

  MEMBER_EXIST(ErrorCode.FAILED_PRECONDITION, "etcdserver: member ID already exist"),
  PEER_URL_EXIST(ErrorCode.FAILED_PRECONDITION, "etcdserver: Peer URLs already exists"),
  MEMBER_NOT_ENOUGH_STARTED(ErrorCode.FAILED_PRECONDITION,
      "etcdserver: re-configuration failed due to not enough started members"),
  MEMBER_BAD_URLS(ErrorCode.INVALID_ARGUMENT, "etcdserver: given member URLs are invalid"),
  MEMBER_NOT_FOUND(ErrorCode.NOT_FOUND, "etcdserver: member not found"),
  MEMBER_NOT_LEARNER(ErrorCode.FAILED_PRECONDITION, "etcdserver: can only promote a learner member"),
  LEARNER_NOT_READY(ErrorCode.FAILED_PRECONDITION,
      "etcdserver: can only promote a learner member which is in sync with leader"),
  TOO_MANY_LEARNERS(ErrorCode.FAILED_PRECONDITION, "etcdserver: too many learner members in cluster"),

  NOT_SUPPORTED_FOR_LEARNER(ErrorCode.UNAVAILABLE, "etcdserver: rpc not supported for learner"),
  NO_LEADER(ErrorCode.UNAVAILABLE, "etcdserver: no leader"),
  UNHEALTHY(ErrorCode.UNAVAILABLE, "etcdserver: unhealthy cluster"),
  NOT_LEADER(ErrorCode.FAILED_PRECONDITION, "etcdserver: not leader"),
  BAD_LEADER_TRANSFEREE(ErrorCode.FAILED_PRECONDITION, "etcdserver: bad leader transferee"),
  TIMEOUT_LEADER_TRANSFER(ErrorCode.UNAVAILABLE, "etcdserver: request timed out, leader transfer took too long"),
  LEADER_CHANGED(ErrorCode.UNAVAILABLE, "etcdserver: leader changed"),
  TIMEOUT(ErrorCode.UNAVAILABLE, "etcdserver: request timed out"),
  TIMEOUT_LEADER_FAIL(ErrorCode.UNAVAILABLE, "etcdserver: request timed out, possibly due to previous leader failure"),
  NOT_CAPABLE(ErrorCode.UNAVAILABLE, "etcdserver: not capable"),
  STOPPED(ErrorCode.UNAVAILABLE, "etcdserver: server stopped"),

  ROOT_USER_NOT_EXIST(ErrorCode.FAILED_PRECONDITION, "etcdserver: root user does not exist"),
  ROOT_ROLE_NOT_EXIST(ErrorCode.FAILED_PRECONDITION, "etcdserver: root user does not have root role"),
  USER_ALREADY_EXIST(ErrorCode.FAILED_PRECONDITION, "etcdserver: user name already exists"),
  USER_EMPTY(ErrorCode.INVALID_ARGUMENT, "etcdserver: user name is empty"),
  USER_NOT_FOUND(ErrorCode.FAILED_PRECONDITION, "etcdserver: user name not found"),
  ROLE_ALREADY_EXIST(ErrorCode.FAILED_PRECONDITION, "etcdserver: role name already exists"),
  ROLE_NOT_FOUND(ErrorCode.FAILED_PRECONDITION, "etcdserver: role name not found"),
  ROLE_EMPTY(ErrorCode.INVALID_ARGUMENT, "etcdserver: role name is empty"),
  AUTH_FAILED(ErrorCode.INVALID_ARGUMENT,
      "etcdserver: authentication failed, invalid user ID or password"),
  PERMISSION_NOT_GIVEN(ErrorCode.INVALID_ARGUMENT, "etcdserver: permission not given"),
  PERMISSION_DENIED(ErrorCode.PERMISSION_DENIED, "etcdserver: permission denied"),
  ROLE_NOT_GRANTED(ErrorCode.FAILED_PRECONDITION, "etcdserver: role is not granted to the user"),
  PERMISSION_NOT_GRANTED(ErrorCode.FAILED_PRECONDITION,
      "etcdserver: permission is not granted to the role"),
  AUTH_NOT_ENABLED(ErrorCode.FAILED_PRECONDITION, "etcdserver: authentication is not enabled"),
  INVALID_AUTH_TOKEN(ErrorCode.UNAUTHENTICATED, "etcdserver: invalid auth token"),
  INVALID_AUTH_MGMT(ErrorCode.INVALID_ARGUMENT, "etcdserver: invalid auth management"),
  AUTH_OLD_REVISION(ErrorCode.INVALID_ARGUMENT, "etcdserver: revision of auth store is old"),
  // auth errors etcd's v3rpc does not map: they reach the client as Unknown with auth's own text
  NO_PASSWORD_USER(ErrorCode.UNKNOWN, "auth: authentication failed, password was given for no password user"),
  VERIFY_ONLY(ErrorCode.UNKNOWN, "auth: token signing attempted with verify-only key"),
  // v3election's errors: plain Go errors, so Unknown with their own text
  ELECTION_NOT_LEADER(ErrorCode.UNKNOWN, "election: not leader"),
  ELECTION_NO_LEADER(ErrorCode.UNKNOWN, "election: no leader"),
  ELECTION_MISSING_LEADER(ErrorCode.UNKNOWN, "\"leader\" field must be provided");

  private final ErrorCode code;
  private final String text;

  EtcdError(ErrorCode code, String text) {
    this.code = code;
    this.text = text;
  }

  public ErrorCode code() {
    return code;
  }

  public String text() {
    return text;
  }

  /** The error as a Go status error prints itself: "rpc error: code = Unauthenticated desc = ...". */
  public String goStatusText() {
    return "rpc error: code = " + code.goName() + " desc = " + text;
  }

  public EtcdException exception() {
    return new EtcdException(this);
  }

  /** The error with this exact text (as another member reported it), if there is one. */
  public static java.util.Optional<EtcdError> byText(String text) {
    return java.util.Arrays.stream(values()).filter(e -> e.text.equals(text)).findFirst();
  }
}

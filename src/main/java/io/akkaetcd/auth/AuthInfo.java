package io.akkaetcd.auth;

/**
 * Who a request acts as and the auth revision its token (or the serving member) saw: etcd's
 * AuthInfo, carried in a Raft entry's header as {username, auth_revision}. Revision 0 means no
 * credential at all (etcd answers "user name is empty").
 */
public record AuthInfo(String username, long revision) {
  public AuthInfo {
    username = username == null ? "" : username;
  }
}

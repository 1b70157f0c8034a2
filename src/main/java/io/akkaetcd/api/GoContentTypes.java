package io.akkaetcd.api;

import akka.http.javadsl.model.ContentType;
import akka.http.javadsl.model.ContentTypes;
import akka.http.javadsl.model.HttpCharset;
import akka.http.javadsl.model.HttpCharsets;
import akka.http.javadsl.model.MediaType;
import akka.http.javadsl.model.MediaTypes;

/**
 * The Content-Type values Go's net/http and promhttp send, byte for byte: Akka HTTP's own
 * constants spell the charset "UTF-8", Go spells it "utf-8".
 */
public final class GoContentTypes {
  private GoContentTypes() {}

  private static final HttpCharset UTF_8 = HttpCharsets.custom("utf-8");

  /** {@code text/plain; charset=utf-8}: http.Error's and a body written without a type. */
  public static final ContentType.WithCharset TEXT_PLAIN = MediaTypes.TEXT_PLAIN.toContentType(UTF_8);

  /** {@code text/plain; version=0.0.4; charset=utf-8}: promhttp's text exposition format. */
  public static final ContentType.WithCharset PROMETHEUS_TEXT =
      ((MediaType.WithOpenCharset) ContentTypes.parse("text/plain; version=0.0.4").mediaType()).toContentType(UTF_8);
}

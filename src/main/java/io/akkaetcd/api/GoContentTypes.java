package io.akkaetcd.api;

import akka.http.javadsl.model.ContentType;
import akka.http.javadsl.model.ContentTypes;
import akka.http.javadsl.model.HttpCharsets;
import akka.http.javadsl.model.MediaType;

/**
 * Content-Type values as Go's net/http and promhttp send them, byte for byte: Akka HTTP's parser
 * and constants spell the charset "UTF-8", Go spells it "utf-8".
 */
public final class GoContentTypes {
  private GoContentTypes() {}

  /** {@code text/plain; charset=utf-8}: http.Error's and a body written without a type. */
  public static final ContentType.WithCharset TEXT_PLAIN = exactly("text/plain; charset=utf-8");

  /** A text type with a charset, its charset kept as spelled in {@code value}. */
  public static ContentType.WithCharset exactly(String value) {
    ContentType parsed = ContentTypes.parse(value);
    String charset = value.substring(value.indexOf("charset=") + "charset=".length());
    return ((MediaType.WithOpenCharset) parsed.mediaType()).toContentType(HttpCharsets.custom(charset));
  }
}

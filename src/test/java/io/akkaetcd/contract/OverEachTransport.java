package io.akkaetcd.contract;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A contract test: run once per transport its class's static {@code transports()} gives. The
 * transports live as long as the class's member, so JUnit must not close them after each run.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ParameterizedTest(name = "{0}", autoCloseArguments = false)
@MethodSource("transports")
@interface OverEachTransport {}

package dev.corobridge.demo.web;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.reactive.function.server.support.RouterFunctionMapping;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping;

/**
 * Asks the service's own routes before the actuator's: the {@code DispatcherHandler} tries its handler
 * mappings in order, and Spring Boot puts the actuator's mappings first (order
 * {@value #ACTUATOR_ORDER}: the endpoints, their controllers and health's additional paths). For a
 * path that is not an endpoint's, the endpoints' mapping cannot tell that from the path alone: it
 * tests each of its mappings (health and its groups, info, metrics, prometheus, the links), method
 * and {@code Accept} header first and the path last, and answers nothing. Every request of the
 * board and every ping paid that before reaching its own route (4 % of a snapshot's samples, 8 % of
 * a ping's, in a JFR of the service under load). With the functional routes (both faces of the
 * board) first and the annotated controllers ({@code /api/ping}, {@code /api/live}) second, a
 * request of the service reaches its route at once and an actuator request passes two mappings
 * that do not match it.
 *
 * <p>The paths are disjoint ({@code /api/...} here, {@code /actuator/...} there), so the order changes
 * which mapping is asked first, never which one answers a request. Only the two mappings Spring's
 * WebFlux configuration declares are moved (by bean name and type); others, such as the actuator's
 * own {@code ControllerEndpointHandlerMapping} (a subclass of the annotated one) and the welcome
 * page's, keep their order.
 *
 * <p>Thread-safety: the post-processor runs once per bean while the context starts; the orders it
 * sets are read when the {@code DispatcherHandler} sorts its mappings, before the first request.
 */
@Configuration(proxyBeanMethods = false)
public class HandlerMappingOrder {

    /** Where Spring Boot puts the actuator's endpoint handler mappings. */
    private static final int ACTUATOR_ORDER = -100;

    /** The functional routes: both faces of the board. */
    private static final int ROUTES_ORDER = ACTUATOR_ORDER - 2;

    /** The annotated controllers: ping and the live metrics. */
    private static final int ANNOTATED_ORDER = ACTUATOR_ORDER - 1;

    /** Static, so that the post-processor exists before the mappings it orders are created. */
    @Bean
    static BeanPostProcessor serviceRoutesBeforeActuator() {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessBeforeInitialization(Object bean, String name) {
                if (bean instanceof RouterFunctionMapping routes && name.equals("routerFunctionMapping")) {
                    routes.setOrder(ROUTES_ORDER);
                } else if (bean instanceof RequestMappingHandlerMapping annotated
                        && name.equals("requestMappingHandlerMapping")) {
                    annotated.setOrder(ANNOTATED_ORDER);
                }
                return bean;
            }
        };
    }
}

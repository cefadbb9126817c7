// Chaos: a real `kill -9` of a writer process after the domain commit, before `mcp.operation_finished`: settled as committed, from its terminal event.
// 10 times per backend (50 with AWR_CHAOS_FULL=1), rotating through event, evidence, session and
// work-transition writes (the last also rewrites the YAML source). Nothing acknowledged is lost,
// the killed write is reported unknown, recovery settles it, and a replay never applies it twice.
import { killPhaseSuite } from "./fixtures/chaos-kill-phase-suite.js";

killPhaseSuite("after_domain");

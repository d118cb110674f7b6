// guardrun as the tool input and output guardrails of the OpenAI Agents
// SDK (@openai/agents): before a tool runs, the call is a tool.before
// event; after it ran, its output is a tool.after event. A refusal is the
// SDK's rejectContent: the tool does not run (input), or its output does
// not reach the model (output); the model reads guardrun's reason instead.
//
//   const g = await Guardrun.connect();
//   const { inputGuardrails, outputGuardrails } = guardrunGuardrails(g, () => sessionId);
//   const sendMoney = tool({ name: "send_money", ..., inputGuardrails, outputGuardrails });
//   await g.prompt(sessionId, userInput);      // the user's words are trusted text
//   await run(agent, userInput);

import { defineToolInputGuardrail, defineToolOutputGuardrail, ToolGuardrailFunctionOutputFactory } from "@openai/agents";
import { Guardrun } from "./guardrun";

function args(raw: string): Record<string, unknown> {
  try {
    const v = JSON.parse(raw || "{}");
    return v && typeof v === "object" && !Array.isArray(v) ? v : { value: v };
  } catch {
    return { arguments: raw };
  }
}

/** The input and output guardrails deciding every call of a tool they are given to. */
export function guardrunGuardrails(g: Guardrun, session: () => string) {
  const input = defineToolInputGuardrail({
    name: "guardrun",
    run: async ({ toolCall }) => {
      const d = await g.before(session(), toolCall.name, args(toolCall.arguments));
      return d.allowed
        ? ToolGuardrailFunctionOutputFactory.allow({ guardrun: d.outcome })
        : ToolGuardrailFunctionOutputFactory.rejectContent(d.reason, { guardrun: d.outcome, failed: d.failed });
    },
  });
  const output = defineToolOutputGuardrail({
    name: "guardrun",
    run: async ({ toolCall, output }) => {
      const d = await g.after(session(), toolCall.name, args(toolCall.arguments), output);
      return d.allowed
        ? ToolGuardrailFunctionOutputFactory.allow({ guardrun: d.outcome })
        : ToolGuardrailFunctionOutputFactory.rejectContent(d.reason, { guardrun: d.outcome, failed: d.failed });
    },
  });
  return { inputGuardrails: [input], outputGuardrails: [output] };
}

/**
 * Environment variables that name a well-known service's credential, and the API host a server given
 * it connects to: `mcpdctl import` and `mcpdctl add` propose that host in `sandbox.network.allow`.
 * Matched on the whole variable name; a URL in any variable's value is proposed as well.
 */
const KNOWN: ReadonlyArray<[RegExp, string[]]> = [
  [/^(GITHUB_(PERSONAL_ACCESS_)?TOKEN|GH_TOKEN|GITHUB_PAT)$/, ['api.github.com']],
  [/^GITLAB_(PERSONAL_ACCESS_)?TOKEN$/, ['gitlab.com']],
  [/^OPENAI_API_KEY$/, ['api.openai.com']],
  [/^ANTHROPIC_API_KEY$/, ['api.anthropic.com']],
  [/^BRAVE_API_KEY$/, ['api.search.brave.com']],
  [/^SLACK_(BOT|USER)_TOKEN$/, ['slack.com']],
  [/^NOTION_(API_KEY|TOKEN|API_TOKEN)$/, ['api.notion.com']],
  [/^LINEAR_API_KEY$/, ['api.linear.app']],
  [/^SENTRY_AUTH_TOKEN$/, ['sentry.io']],
  [/^GOOGLE_MAPS_API_KEY$/, ['maps.googleapis.com']],
  [/^TAVILY_API_KEY$/, ['api.tavily.com']],
  [/^EXA_API_KEY$/, ['api.exa.ai']],
  [/^PERPLEXITY_API_KEY$/, ['api.perplexity.ai']],
  [/^STRIPE_(SECRET|API)_KEY$/, ['api.stripe.com']],
  [/^FIRECRAWL_API_KEY$/, ['api.firecrawl.dev']],
  [/^CLOUDFLARE_API_TOKEN$/, ['api.cloudflare.com']],
  [/^(HF_TOKEN|HUGGING_FACE_HUB_TOKEN)$/, ['huggingface.co']],
  [/^MISTRAL_API_KEY$/, ['api.mistral.ai']],
  [/^GEMINI_API_KEY$/, ['generativelanguage.googleapis.com']],
];

/** The API hosts a variable of this name is for; [] when it is not a known one. */
export function knownApiHosts(variable: string): string[] {
  return KNOWN.find(([re]) => re.test(variable))?.[1] ?? [];
}

/**
 * callers.yaml with alice and carol on `profile` under three rules over server-everything's tools ("ev"):
 * alice may not use ev__get-sum (hidden: line 3) nor echo "secret"; carol may echo once an hour.
 */
export function callersWithRules(profile: string): string {
  return `callers: { alice: ${profile}, carol: ${profile} }
policies:
  - name: no-sum-for-alice
    callers: [alice]
    effect: deny
    tools: ["ev__get-sum"]
  - name: no-secret-echo
    callers: [alice]
    effect: deny
    tools: ["ev__echo"]
    when: 'args.message == "secret"'
  - name: carol-echo-quota
    callers: [carol]
    effect: allow
    tools: ["ev__echo"]
    rate: "1/hour"
`;
}

/**
 * callers.yaml with alice and bob on `default` (server-everything as "ev") under rules over resources,
 * prompts and a tool: `no-text-resources` (line 3) hides a static document and the text template from
 * alice, `no-completable-prompt` a prompt; `no-blob-2` and `no-paris` refuse only matching requests;
 * `echo-under-tmp` reads `args.path`, which a call may not send. Bob has no rules.
 */
export function callersWithResourceRules(): string {
  return `callers: { alice: default, bob: default }
policies:
  - name: no-text-resources
    callers: [alice]
    effect: deny
    resources: ["demo://resource/static/document/instructions.md", "demo://resource/dynamic/text/*"]
  - name: no-completable-prompt
    callers: [alice]
    effect: deny
    prompts: ["ev__completable-prompt"]
  - name: no-blob-2
    callers: [alice]
    effect: deny
    resources: ["demo://resource/dynamic/blob/*"]
    when: 'uri.endsWith("/2")'
  - name: no-paris
    callers: [alice]
    effect: deny
    prompts: ["ev__args-prompt"]
    when: 'has(args.city) && args.city == "Paris"'
  - name: echo-under-tmp
    callers: [alice]
    effect: deny
    tools: ["ev__echo"]
    when: 'args.path.startsWith("/tmp")'
`;
}

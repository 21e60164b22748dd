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

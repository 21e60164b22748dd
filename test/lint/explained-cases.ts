// Sample code for explained-rules.test.ts. Each case is separated by code lines so that one case's
// comment cannot explain another's; the test finds cases by their text, not by line numbers.
const later = (): Promise<number> => Promise.resolve(1);
const seen = new Set<number>();
export const separator = 0;

export function cases(): void {
  void later(); // the explained one: a trailing reason
  seen.add(1);
  void later();
  seen.add(2);
  void seen.add(3);
  seen.add(4);
  later().catch(() => {});
  seen.add(5);
  later().catch(() => undefined);
  seen.add(6);
  later().catch(() => {
    // dropped on purpose: the explained handler
  });
  seen.add(7);
  try {
    seen.add(8);
  } catch {}
  seen.add(9);
}

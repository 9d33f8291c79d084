/**
 * Prices are stored in minor units (`price_minor`) with an ISO 4217 currency; tools speak major units
 * (`price` number + `currency`). The number of minor digits comes from Intl (JPY 0, EUR 2, KWD 3).
 */
import { ToolError } from "../../errors.ts";

/** Minor-unit digits of `currency`. @throws ToolError validation_failed for an unknown code. */
export function minorDigits(currency: string): number {
  try {
    return (
      new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ??
      2
    );
  } catch {
    throw new ToolError("validation_failed", "currency is not an ISO 4217 code");
  }
}

/** 19.99 EUR -> 1999. @throws ToolError validation_failed for a negative or too precise amount. */
export function toMinor(price: number, currency: string): number {
  const digits = minorDigits(currency);
  const minor = Math.round(price * 10 ** digits);
  if (!Number.isFinite(price) || price < 0 || !Number.isSafeInteger(minor)) {
    throw new ToolError("validation_failed", "price must be a non-negative amount");
  }
  return minor;
}

/** 1999 EUR -> 19.99. */
export function fromMinor(minor: number, currency: string): number {
  return minor / 10 ** minorDigits(currency);
}

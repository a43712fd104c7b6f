/**
 * The text the messaging read model (and every answer read from it) keeps of a message flagged
 * `containsCode`: every digit replaced by `*`, so the message stays recognisable ("****** is your
 * code for ...") and the code is not in it.
 */
export const maskedCodeMessage = (text: string) => text.replace(/\p{Nd}/gu, '*');

/**
 * Tokens and stems: the one analysis both the index and the queries use, so that a stemmed query
 * word meets the stemmed document word (Porter's step 1: plurals, `-ed`, `-ing`, `-y`; decision 0400).
 */

const WORD = /[\p{L}\p{N}]+/gu

/** The lower-cased words of a text, in order. */
export const words = (text: string): Array<string> => text.toLowerCase().match(WORD) ?? []

const STOP = new Set([
  "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "is", "it", "of", "on", "or", "the", "to", "with"
])

/** Whether a word carries no meaning for search (`the`, `of`, …). */
export const isStopWord = (word: string): boolean => STOP.has(word)

const VOWEL = /[aeiou]/
const isConsonant = (word: string, i: number): boolean => {
  const c = word[i]
  if ("aeiou".includes(c)) return false
  if (c === "y") return i === 0 ? true : !isConsonant(word, i - 1)
  return true
}

/** Porter's m: the number of vowel-consonant sequences of a stem. */
const measure = (stem: string): number => {
  let m = 0
  let i = 0
  const n = stem.length
  while (i < n && isConsonant(stem, i)) i++
  while (i < n) {
    while (i < n && !isConsonant(stem, i)) i++
    if (i >= n) break
    m++
    while (i < n && isConsonant(stem, i)) i++
  }
  return m
}

const hasVowel = (stem: string): boolean => {
  for (let i = 0; i < stem.length; i++) if (!isConsonant(stem, i)) return true
  return false
}

const doubleConsonant = (word: string): boolean =>
  word.length >= 2 && word[word.length - 1] === word[word.length - 2] && isConsonant(word, word.length - 1)

/** consonant-vowel-consonant at the end, the last not w, x or y (`hop`, not `snow`). */
const cvc = (word: string): boolean => {
  const n = word.length
  if (n < 3) return false
  const last = word[n - 1]
  return isConsonant(word, n - 3) && !isConsonant(word, n - 2) && isConsonant(word, n - 1) && !"wxy".includes(last)
}

const step1b2 = (stem: string): string => {
  if (stem.endsWith("at") || stem.endsWith("bl") || stem.endsWith("iz")) return `${stem}e`
  if (doubleConsonant(stem) && !/[lsz]$/.test(stem)) return stem.slice(0, -1)
  if (measure(stem) === 1 && cvc(stem)) return `${stem}e`
  return stem
}

const porterStep1 = (input: string): string => {
  let word = input
  // 1a
  if (word.endsWith("sses")) word = word.slice(0, -2)
  else if (word.endsWith("ies")) word = word.slice(0, -2)
  else if (word.endsWith("ss")) {
    // unchanged
  } else if (word.endsWith("s")) word = word.slice(0, -1)
  // 1b
  if (word.endsWith("eed")) {
    if (measure(word.slice(0, -3)) > 0) word = word.slice(0, -1)
  } else if (word.endsWith("ed") && hasVowel(word.slice(0, -2))) {
    word = step1b2(word.slice(0, -2))
  } else if (word.endsWith("ing") && hasVowel(word.slice(0, -3))) {
    word = step1b2(word.slice(0, -3))
  }
  // 1c
  if (word.endsWith("y") && hasVowel(word.slice(0, -1))) word = `${word.slice(0, -1)}i`
  return word
}

const cache = new Map<string, string>()
const CACHE_LIMIT = 200_000

/**
 * The stem of a lower-case word (`services` → `servic`, `authenticated` → `authenticate`).
 * Words of three letters or fewer, and those with digits, stay as they are.
 */
export const stem = (word: string): string => {
  const known = cache.get(word)
  if (known !== undefined) return known
  const stemmed = word.length <= 3 || !VOWEL.test(word) || /\d/.test(word) ? word : porterStep1(word)
  if (cache.size < CACHE_LIMIT) cache.set(word, stemmed)
  return stemmed
}

/** The stems of a text's words that are not stop words. */
export const terms = (text: string): Array<string> => {
  const out: Array<string> = []
  for (const word of words(text)) if (!isStopWord(word)) out.push(stem(word))
  return out
}

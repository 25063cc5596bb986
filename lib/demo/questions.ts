/**
 * What the offline demo model understands of a question: a handful of keyword rules for the kinds
 * of question the original request asked (the weather in a city, the news, cancelling orders by
 * number, which functions there are), in Chinese and in English. Nothing more: it is a stand-in
 * that shows the service working, not a language model.
 */

export type Language = 'zh' | 'en';

export interface DemoQuestion {
  language: Language;
  /** Cities named in the question, as written, in order. */
  cities: string[];
  asksWeather: boolean;
  asksNews: boolean;
  /** The demo server's news category ids the question names (none: every category). */
  newsCategories: number[];
  /** Order numbers such as ORD20250514118567, in order. */
  orderNumbers: string[];
  asksToCancel: boolean;
  asksForTools: boolean;
}

/** Cities recognised by name, Chinese and English; others are found after "weather in". */
const CITIES: ReadonlyArray<readonly [string, string]> = [
  ['北京', 'Beijing'], ['上海', 'Shanghai'], ['广州', 'Guangzhou'], ['深圳', 'Shenzhen'], ['杭州', 'Hangzhou'],
  ['南京', 'Nanjing'], ['苏州', 'Suzhou'], ['成都', 'Chengdu'], ['重庆', 'Chongqing'], ['武汉', 'Wuhan'],
  ['西安', "Xi'an"], ['天津', 'Tianjin'], ['长沙', 'Changsha'], ['青岛', 'Qingdao'], ['厦门', 'Xiamen'],
  ['昆明', 'Kunming'], ['大连', 'Dalian'], ['沈阳', 'Shenyang'], ['哈尔滨', 'Harbin'], ['郑州', 'Zhengzhou'],
  ['香港', 'Hong Kong'], ['澳门', 'Macau'], ['台北', 'Taipei'], ['东京', 'Tokyo'], ['首尔', 'Seoul'],
  ['新加坡', 'Singapore'], ['纽约', 'New York'], ['伦敦', 'London'], ['巴黎', 'Paris'], ['柏林', 'Berlin'],
  ['悉尼', 'Sydney'], ['旧金山', 'San Francisco'],
];

const NEWS_CATEGORIES: ReadonlyArray<readonly [number, RegExp]> = [
  [1, /科技|技术|tech/i],
  [2, /财经|经济|金融|financ|business|econom/i],
  [3, /体育|sport/i],
  [4, /娱乐|entertainment|showbiz/i],
  [5, /国际|international|world/i],
];

const WEATHER = /天气|气温|温度|下雨|下雪|weather|temperature|forecast|\brain/i;
const NEWS = /新闻|头条|资讯|\bnews\b|headlines/i;
const CANCEL = /取消|撤销|cancel/i;
const TOOLS = /function|函数|工具|能做什么|会做什么|\btools?\b|what can you do/i;
const ORDER_NUMBER = /\bORD\d{6,}\b/gi;
/** An English city after "weather in": capitalised words (Boston, New Orleans). */
const ENGLISH_CITY_AFTER = /\b(?:in|for|at)\s+((?:[A-Z][A-Za-z.'-]+)(?:\s+[A-Z][A-Za-z.'-]+)*)/g;

export function readQuestion(text: string): DemoQuestion {
  const asksWeather = WEATHER.test(text);
  const asksNews = NEWS.test(text);
  return {
    language: /[\u4e00-\u9fff]/.test(text) ? 'zh' : 'en',
    cities: asksWeather ? citiesIn(text) : [],
    asksWeather,
    asksNews,
    newsCategories: asksNews ? NEWS_CATEGORIES.filter(([, pattern]) => pattern.test(text)).map(([id]) => id) : [],
    orderNumbers: [...new Set([...text.matchAll(ORDER_NUMBER)].map((match) => match[0].toUpperCase()))],
    asksToCancel: CANCEL.test(text),
    asksForTools: TOOLS.test(text),
  };
}

/** Known cities in the order they appear, then English names after "in" that are not known ones. */
function citiesIn(text: string): string[] {
  const found: Array<{ at: number; city: string }> = [];
  for (const [chinese, english] of CITIES) {
    const chineseAt = text.indexOf(chinese);
    if (chineseAt >= 0) found.push({ at: chineseAt, city: chinese });
    const englishAt = text.search(new RegExp(`\\b${english.replace(/[.'-]/g, '\\$&')}\\b`, 'i'));
    if (englishAt >= 0) found.push({ at: englishAt, city: english });
  }
  for (const match of text.matchAll(ENGLISH_CITY_AFTER)) {
    const city = match[1]!;
    if (!found.some((known) => known.city.toLowerCase() === city.toLowerCase())) found.push({ at: match.index, city });
  }
  return [...new Set(found.sort((first, second) => first.at - second.at).map(({ city }) => city))];
}

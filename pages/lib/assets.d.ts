// `import href from 'url:package/file'` gives the public URL of a copy of
// the file among the hashed assets (generator/bundle.go, assetURLs).
declare module 'url:*' {
  const url: string;
  export default url;
}
